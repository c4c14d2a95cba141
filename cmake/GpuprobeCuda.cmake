# Decides whether the CUDA backend is built (GPUPROBE_CUDA = AUTO | ON | OFF) and which
# architectures it targets. Configuration never requires nvcc: CUDA is enabled here only
# when the option resolves to on (nvbandwidth's project(... CUDA) is the thing not to copy).
include(CheckLanguage)

set(GPUPROBE_CUDA_ENABLED OFF)
set(GPUPROBE_CUDA_REASON "GPUPROBE_CUDA=OFF")
string(TOUPPER "${GPUPROBE_CUDA}" _gpuprobe_cuda_mode)

if(NOT _gpuprobe_cuda_mode STREQUAL "OFF")
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      # The list depends on the toolkit (CUDA 13 dropped sm_50..sm_72). Ask nvcc first.
      execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --version OUTPUT_VARIABLE _nvcc_version)
      string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" _m "${_nvcc_version}")
      set(_cuda_major "${CMAKE_MATCH_1}")
      # 75-real: Turing (T4, RTX 20xx)        80-real: Ampere datacenter (A100, A30)
      # 86-real: Ampere consumer (A10, RTX 30) 89-real: Ada (L4, L40S, RTX 40xx)
      # 90: Hopper (H100, H200) as SASS *and* PTX, so newer GPUs (Blackwell) JIT from it.
      set(_archs "75-real;80-real;86-real;89-real;90")
      if(_cuda_major AND _cuda_major LESS 13)
        # 70-real: Volta (V100); only toolkits before 13 can still build it.
        set(_archs "70-real;${_archs}")
      endif()
      set(CMAKE_CUDA_ARCHITECTURES "${_archs}" CACHE STRING "CUDA architectures" FORCE)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(GPUPROBE_CUDA_ENABLED ON)
    set(GPUPROBE_CUDA_REASON "nvcc found: ${CMAKE_CUDA_COMPILER}")
  elseif(_gpuprobe_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "GPUPROBE_CUDA=ON but no CUDA compiler (nvcc) was found. Install the CUDA toolkit or configure with -DGPUPROBE_CUDA=AUTO.")
  else()
    set(GPUPROBE_CUDA_REASON "no nvcc found; the binary reports GPUs as unavailable")
  endif()
endif()
