# Metro: City Edition cities (rules C5-C10, decisions C26-C35 of docs/rules/metro.md): the
# city part of a state, on top of the base game's MetroData, and the per-game city tables read
# from data/cities.json (RECONSTRUCTED numbers, or a user's file: option city_data).
from metro_ai.engine.metro.state cimport MetroState

cdef enum:
    CITY_COLOURS = 8           # tourist colours (C5, C26)
    CITY_MAX_LANDMARKS = 16    # landmarks a city's data may list
    CITY_MAX_SPACES = 8        # spaces on one landmark (Paris colours, Stockholm places)
    CITY_MAX_PIECES = 8        # Berlin: VP pieces per colour (C33)
    CITY_PARIS = 1
    CITY_STOCKHOLM = 2
    CITY_LONDON = 3
    CITY_NEW_YORK = 4
    CITY_BERLIN = 5
    CITY_CHOICE_LANDMARK = 6465   # Paris: put the pending tourist on landmark id (6465 + id, C28)
    CITY_CHOICE_SQUARE = 6481     # Paris: add it to the tourists on square (6481 + square, C28)
    CITY_CHOICE_END = 6545        # Paris games' action space

cdef struct CityTables:                    # per game: the city and its (reconstructed) numbers
    int city                               # CITY_PARIS .. CITY_BERLIN
    int nlm                                # landmarks listed for the city
    signed char lm_spaces[16]              # spaces per landmark (Paris, Stockholm)
    signed char lm_colour[16][8]           # Paris: colour of each space; London: [0] the landmark's
    int lm_points[16]                      # Paris: bonus for a full landmark; Stockholm: per tourist
    int tourist_points                     # Paris, New York, Berlin tickets: points per tourist/ticket
    int set_bonus[9]                       # New York, Berlin tickets: bonus by distinct colours held
    int npieces                            # Berlin: VP pieces per colour
    signed char side_values[2][8]          # Berlin: the pieces' values on landmark side A, B
    int side_mode                          # Berlin: 0 side A, 1 side B, 2 each colour at random
    int tickets                            # Berlin: 1 with the ticket variant (C10, C33)

cdef struct CityData:                      # the city part of a state, hidden parts included
    unsigned char tour[64][8]              # tourists waiting on each square, per colour
    signed char station_tourist[33]        # New York: colour waiting at station 1..32, -1 taken
    signed char lm_owner[16]               # Paris: the player holding each landmark, -1 out of play
    signed char row[16]                    # Paris: landmark ids dealt, player by player, each row left
                                           # to right; Stockholm, London: the row by the board;
                                           # Berlin with tickets: its landmark pieces' tourists (C33)
    signed char fill[16][8]                # colour on each space of landmark id (-1 free)
    short removed                          # tourists out of the game (Paris) or set aside (London, Stockholm)
    int pts[8]                             # public city points per player (Paris, London, New York, tickets);
                                           # New York with companies: per company (added to its profit, C35)
    signed char marker[8]                  # Stockholm: holder of each colour's marker, -1 in the box
    signed char taxi                       # London: taxi's place in the row, -1 on the start arrow
    unsigned char held[8][8]               # New York: tourists per colour on each board (per company with
                                           # companies); Berlin: tickets
    signed char landmark[64]               # Berlin: colour of the landmark on a square, -1 none
    signed char carried[64]                # Berlin: colour of the tourist on a tile's arrow, -1 none
    unsigned long long carried_vp          # Berlin: squares whose tourist came from a landmark (VP)
    signed char side[8]                    # Berlin: landmark side per colour (0 A, 1 B)
    signed char pile[8][8]                 # Berlin: face-down VP pieces per colour, drawn from the end
    signed char pile_n[8]
    signed char vp[6][8][8]                # Berlin: VP pieces each player holds, per colour, in order won
    signed char vp_n[6][8]
    signed char pend_player                # Paris: the player choosing where a tourist goes, -1 none (C28)
    signed char pend_square                # Paris: the square the pending tourists were taken from
    unsigned char pend[8]                  # Paris: tourists still to place, per colour (the lowest first)


cdef class CityRules:
    cdef CityTables ct
    cdef readonly object data              # the city's part of the checked data file (a dict)
    cdef readonly tuple colours            # the colours' names, index order
    cdef const CityTables* ct_ptr(self)


cdef class CityState(MetroState):         # the base state's parts (New York: companies, C35), the city's
    cdef CityData city                     # the city's part (tourists, landmarks, Berlin's piles)
    cdef const CityTables* ct
    cdef object rules                      # keeps the tables alive


# The rules the loader (city_loader.pyx) shares with the state.
cdef inline bint has_tourist(const CityData* cd, int sq) noexcept nogil:
    cdef int c
    for c in range(8):
        if cd.tour[sq][c]:
            return True
    return False

# New York's board, Berlin's tickets (C31, C33): their points.
cdef int set_points(const CityTables* ct, const unsigned char* held) noexcept nogil
