# Settings every top-level project in the tree shares: the whole tree (CMakeLists.txt) and the
# layers that also build alone (resp/, persistence/, for their fuzzers). Included right after
# project(): C++20, Release by default, warnings, the test and fuzz switches.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

option(ORDIS_BUILD_TESTS "Build unit and integration tests" OFF)
option(ORDIS_FUZZ "Build libFuzzer targets (clang only)" OFF)

add_compile_options(-Wall -Wextra)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 reports a false -Wrestrict inside libstdc++ for `"literal" + std::string` (GCC bugs
  # 105329 / 105651, fixed in 13); it has no true positives in this code base to hide.
  add_compile_options(-Wno-restrict)
endif()
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-Wthread-safety)
endif()

if(ORDIS_BUILD_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
