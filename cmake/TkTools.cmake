# SPDX-License-Identifier: GPL-3.0-or-later
# The command front ends: one `tracekit` binary with subcommands, and the
# modules it loads only for the commands that need a large library:
#
#   tk-record.so  tools/record/            unicorn, capstone  (record)
#   tk-browse.so  tools/browse/, view/     ncurses            (browse)
#   tk-serve.so   tools/serve/, view/, json/  libmicrohttpd, jansson (serve)
#   tk-json.so    tools/json/, export/, cmd_dump.c, cmd_export.c  jansson
#                                          (export, dump, --json of the others)
#
# The binary holds the whole library and the common command-line layer and
# exports them (-rdynamic) to the modules, which link none of it; so
# `tracekit profile` starts without loading any of those libraries.  The
# modules are built into bin/tracekit-modules/ and installed in
# lib/tracekit/ (tools/cli/modules.c finds them).

file(GLOB_RECURSE TK_TOOL_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/*.c)
list(FILTER TK_TOOL_SOURCES EXCLUDE REGEX "/tools/(record|browse|serve|view|json|export)/")
list(FILTER TK_TOOL_SOURCES EXCLUDE REGEX "/tools/commands/cmd_(dump|export)\\.c$")
add_executable(tracekit_cli ${TK_TOOL_SOURCES})
set_target_properties(tracekit_cli PROPERTIES OUTPUT_NAME tracekit ENABLE_EXPORTS ON
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
target_include_directories(tracekit_cli PRIVATE ${CMAKE_SOURCE_DIR}/tools)
# All of the library, for the modules.
target_link_libraries(tracekit_cli PRIVATE -Wl,--whole-archive $<TARGET_FILE:tracekit>
                      -Wl,--no-whole-archive tracekit ${CMAKE_DL_LIBS})

set(TK_MODULE_DIR ${CMAKE_BINARY_DIR}/bin/tracekit-modules)
function(tk_module name)
  add_library(tk-${name} MODULE ${ARGN})
  set_target_properties(tk-${name} PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${TK_MODULE_DIR})
  target_include_directories(tk-${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools ${CMAKE_SOURCE_DIR}/include)
  get_target_property(idefs tracekit INTERFACE_COMPILE_DEFINITIONS)
  if(idefs)
    target_compile_definitions(tk-${name} PRIVATE ${idefs})
  endif()
  target_include_directories(tk-${name} PRIVATE ${LIBELF_INCLUDE_DIRS})
  add_dependencies(tracekit_cli tk-${name})
  install(TARGETS tk-${name} LIBRARY DESTINATION lib/tracekit)
endfunction()

file(GLOB TK_VIEW_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/view/*.c)
file(GLOB TK_JSON_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/json/*.c)

file(GLOB TK_RECORD_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/record/*.c)
tk_module(record ${TK_RECORD_SOURCES})
if(CAPSTONE_FOUND)
  target_link_libraries(tk-record PRIVATE PkgConfig::CAPSTONE)
  target_compile_definitions(tk-record PRIVATE TK_HAVE_CAPSTONE=1)
endif()
if(UNICORN_FOUND)
  target_link_libraries(tk-record PRIVATE PkgConfig::UNICORN)
  target_compile_definitions(tk-record PRIVATE TK_HAVE_UNICORN=1)
endif()

file(GLOB TK_BROWSE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/browse/*.c)
tk_module(browse ${TK_BROWSE_SOURCES} ${TK_VIEW_SOURCES})
if(CURSES_FOUND)
  target_include_directories(tk-browse PRIVATE ${CURSES_INCLUDE_DIRS})
  target_link_libraries(tk-browse PRIVATE ${CURSES_LIBRARIES})
  target_compile_definitions(tk-browse PRIVATE TK_HAVE_CURSES=1)
endif()

file(GLOB TK_SERVE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/serve/*.c)
tk_module(serve ${TK_SERVE_SOURCES} ${TK_VIEW_SOURCES} ${TK_JSON_SOURCES})
target_link_libraries(tk-serve PRIVATE PkgConfig::JANSSON)
if(MICROHTTPD_FOUND)
  # The page (tools/serve/web/*) is embedded into the module at build time.
  file(GLOB TK_WEB_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/serve/web/*)
  set(TK_WEB_C ${CMAKE_BINARY_DIR}/generated/serve_assets.c)
  string(REPLACE ";" "|" TK_WEB_LIST "${TK_WEB_FILES}")
  add_custom_command(OUTPUT ${TK_WEB_C}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
    COMMAND ${CMAKE_COMMAND} -DOUT=${TK_WEB_C} "-DFILES=${TK_WEB_LIST}"
            -P ${CMAKE_SOURCE_DIR}/cmake/TkEmbed.cmake
    DEPENDS ${TK_WEB_FILES} ${CMAKE_SOURCE_DIR}/cmake/TkEmbed.cmake
    COMMENT "Embedding the web page" VERBATIM)
  target_sources(tk-serve PRIVATE ${TK_WEB_C})
  target_link_libraries(tk-serve PRIVATE PkgConfig::MICROHTTPD pthread)
  target_compile_definitions(tk-serve PRIVATE TK_HAVE_MICROHTTPD=1)
endif()

file(GLOB TK_EXPORT_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/export/*.c)
tk_module(json ${TK_JSON_SOURCES} ${TK_EXPORT_SOURCES}
          ${CMAKE_SOURCE_DIR}/tools/commands/cmd_dump.c ${CMAKE_SOURCE_DIR}/tools/commands/cmd_export.c)
target_link_libraries(tk-json PRIVATE PkgConfig::JANSSON)
