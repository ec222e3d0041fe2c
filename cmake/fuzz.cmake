# libFuzzer targets (clang only) for the layers that build standalone (resp/, persistence/): the
# library and base/ are instrumented for coverage and sanitizers, and whatever links it needs the sanitizer
# runtimes, hence the PUBLIC link options.
function(ordis_add_fuzzer target lib source)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ORDIS_FUZZ needs clang (libFuzzer): CC=clang CXX=clang++ cmake ...")
  endif()
  set(sanitize -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link ${sanitize})
  # base/ (number parsing, argument splitting) is part of what the parsers run: cover it too.
  target_compile_options(ordis_base PRIVATE -fsanitize=fuzzer-no-link ${sanitize})
  target_link_options(${lib} PUBLIC -fsanitize=address,undefined)
  add_executable(${target} ${source})
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer ${sanitize})
  target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(${target} ${lib})
endfunction()
