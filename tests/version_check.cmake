# version.python: the Python package's __version__ is the library's (include/wgsync.h).
file(STRINGS ${FILE} line REGEX "^__version__ = ")
string(REGEX MATCH "\"([0-9.]+)\"" _ "${line}")
if(NOT CMAKE_MATCH_1 STREQUAL WANT)
  message(FATAL_ERROR "python/wgsync/__init__.py says __version__ = '${CMAKE_MATCH_1}', "
                      "include/wgsync.h says ${WANT}: change both")
endif()
message(STATUS "version ${WANT} in both")
