# The settings a layer that depends on nothing else of ours (resp/, persistence/) needs when its
# CMakeLists.txt is the top-level project, as the top-level CMakeLists.txt sets them for the whole
# tree: C++20, Release by default, warnings, the test and fuzz switches. Included right after the
# layer's project().
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()
option(ORDIS_BUILD_TESTS "Build unit tests" OFF)
option(ORDIS_FUZZ "Build libFuzzer targets (clang only)" OFF)
add_compile_options(-Wall -Wextra)
if(ORDIS_BUILD_TESTS)
  enable_testing()
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
