# Metro: City Edition module 2, central stations (rule C2, decisions C12-C18 of
# docs/rules/metro.md): the pieces part of the state, on top of the base game's MetroData (whose
# `central` and `reached` masks and lines nlines.. carry the pieces' lines) or the companies'.
from metro_ai.engine.metro.rules cimport MetroState
from metro_ai.engine.metro.companies cimport CompaniesState

cdef struct CentralData:
    signed char piece_space[8]     # piece (player; with companies: company) -> its space, -1 in reserve
    signed char space_piece[8]     # space -> the piece on it, -1 none
    unsigned char shown[6]         # with companies: pct indices (bitmask) of the shares each player showed


cdef class CentralState(MetroState):
    cdef CentralData cd


cdef class CentralCompaniesState(CompaniesState):
    cdef CentralData cd
