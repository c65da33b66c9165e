# SPDX-License-Identifier: GPL-3.0-or-later
# Installation (issue 15): `cmake --install BUILD --prefix DIR` into an empty
# DIR gives the binary, every alias, the man page and bash completion
# (tests/install/install.sh).
add_test(NAME install.prefix
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/install.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
          ${CMAKE_BINARY_DIR}/tests-out/install)
