# Metro: City Edition modules 2 and 3 (rules C2, C3, decisions C12-C18 of docs/rules/metro.md).
# No state class of their own: the central-station pieces are the state's central part
# (MetroState.cd, state.pxd; rules.pxd: CentralData, the helpers clear_central, space_free, place_piece,
# check_space), switched on by MetroTables.ncentral; central tracks by MetroTables.centre_tracks.
# central.pyx holds the pieces' text, the deal and the loader.
