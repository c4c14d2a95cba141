# gpuprobe_embed_data(<target> <output.cpp> FILES <name=path>...)
# Turns data files into a generated C++ source so the binary needs no files at run time.
# Each file becomes one entry of the table behind gpuprobe::core::EmbeddedFile().
set(_GPUPROBE_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/EmbedDataGenerate.cmake")

function(gpuprobe_embed_data target output)
  cmake_parse_arguments(ARG "" "" "FILES" ${ARGN})
  set(_names "")
  set(_paths "")
  foreach(entry IN LISTS ARG_FILES)
    string(FIND "${entry}" "=" _eq)
    string(SUBSTRING "${entry}" 0 ${_eq} _name)
    math(EXPR _start "${_eq} + 1")
    string(SUBSTRING "${entry}" ${_start} -1 _path)
    list(APPEND _names "${_name}")
    list(APPEND _paths "${_path}")
  endforeach()
  string(REPLACE ";" "|" _names_arg "${_names}")
  string(REPLACE ";" "|" _paths_arg "${_paths}")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} "-DNAMES=${_names_arg}" "-DPATHS=${_paths_arg}" "-DOUTPUT=${output}"
            -P "${_GPUPROBE_EMBED_SCRIPT}"
    DEPENDS ${_paths} "${_GPUPROBE_EMBED_SCRIPT}"
    COMMENT "Embedding data files into ${output}"
    VERBATIM)
  target_sources(${target} PRIVATE "${output}")
  # Each data file is one raw string literal; GCC and Clang take any length, but Clang's
  # -Wpedantic names lengths over the standard's 64 KiB minimum.
  set_source_files_properties("${output}" PROPERTIES COMPILE_OPTIONS "-Wno-overlength-strings")
endfunction()
