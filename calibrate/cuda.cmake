# cuda.cmake - the CUDA toolchain for calibrate's cuda target (cuda.cu), included by the top-level
# CMakeLists.txt: CMake wants a language enabled in the highest directory common to the targets
# that compile it or link it, and every program that links lbs_calib links CUDA's host libraries
# (libstdc++ for the host code nvcc generates to launch the kernels, the static cudart).
#
# Sets LBS_CUDA_BUILT when nvcc and the CUDA toolkit are found, LBS_CUDA is on (the default) and
# this is neither a sanitizer nor a fuzzer build (nvcc takes neither); calibrate/ then builds
# cuda.cu (sm_80 and sm_90 code with PTX, static cudart) instead of cuda_none.c. Without them the
# project builds as before: no CUDA language, no CUDA libraries.
option(LBS_CUDA "build calibrate's cuda target when nvcc is found" ON)
set(LBS_CUDA_BUILT OFF)
if(LBS_CUDA AND NOT LBS_SANITIZE AND NOT LBS_FUZZ)
  # nvcc is often not on PATH: when no compiler is given (CMAKE_CUDA_COMPILER, CUDACXX) and none is
  # on PATH, take the usual install's.
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(nvcc_on_path OFF)
    string(REPLACE ":" ";" path_dirs "$ENV{PATH}")
    foreach(d IN LISTS path_dirs)
      if(d AND EXISTS "${d}/nvcc")
        set(nvcc_on_path ON)
      endif()
    endforeach()
    if(NOT nvcc_on_path)
      set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    find_package(CUDAToolkit)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80;90") # A100, H100 (and PTX for later ones)
    endif()
    set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    enable_language(CUDA)
    set(LBS_CUDA_BUILT ON)
  endif()
endif()
if(LBS_CUDA_BUILT)
  message(STATUS "CUDA: calibrate's cuda target with ${CMAKE_CUDA_COMPILER} (${CMAKE_CUDA_COMPILER_VERSION}), "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES}")
else()
  message(STATUS "CUDA: no cuda target (LBS_CUDA=${LBS_CUDA}; nvcc or the CUDA toolkit not found, or a sanitizer "
                 "or fuzzer build)")
endif()
