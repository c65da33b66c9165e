# SPDX-License-Identifier: GPL-3.0-or-later
# The trace linker's shipped configuration files (share/trace-linker):
# compiled into the tracekit binary (the last place `tracekit tld` looks),
# copied to <build>/share/tracekit/trace-linker (beside build/bin, as an
# installation has them) and installed to <prefix>/share/tracekit/trace-linker.
set(TK_TLD_INI_DIR ${CMAKE_SOURCE_DIR}/share/trace-linker)
file(GLOB TK_TLD_INI_FILES CONFIGURE_DEPENDS ${TK_TLD_INI_DIR}/*.ini)
set(TK_TLD_EMBED_C ${CMAKE_BINARY_DIR}/generated/tld_builtin_ini.c)
add_custom_command(OUTPUT ${TK_TLD_EMBED_C}
  COMMAND ${CMAKE_COMMAND} -DDIR=${TK_TLD_INI_DIR} -DOUT=${TK_TLD_EMBED_C}
          -P ${CMAKE_SOURCE_DIR}/cmake/TkTldEmbed.cmake
  DEPENDS ${TK_TLD_INI_FILES} ${CMAKE_SOURCE_DIR}/cmake/TkTldEmbed.cmake
  COMMENT "Embedding the trace linker's INI files" VERBATIM)
target_sources(tracekit_cli PRIVATE ${TK_TLD_EMBED_C})

set(TK_TLD_SHARE ${CMAKE_BINARY_DIR}/share/tracekit/trace-linker)
add_custom_command(OUTPUT ${TK_TLD_SHARE}/.stamp
  COMMAND ${CMAKE_COMMAND} -E make_directory ${TK_TLD_SHARE}
  COMMAND ${CMAKE_COMMAND} -E copy ${TK_TLD_INI_FILES} ${TK_TLD_SHARE}
  COMMAND ${CMAKE_COMMAND} -E touch ${TK_TLD_SHARE}/.stamp
  DEPENDS ${TK_TLD_INI_FILES}
  COMMENT "Copying the trace linker's INI files" VERBATIM)
add_custom_target(tld_share ALL DEPENDS ${TK_TLD_SHARE}/.stamp)
install(FILES ${TK_TLD_INI_FILES} DESTINATION share/tracekit/trace-linker)
