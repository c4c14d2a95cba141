# gpuprobe_require_package(<cmake name> <display name> <Debian package>)
# find_package, or stop with the apt package to install: no FetchContent, no network.
function(gpuprobe_require_package name display apt_package)
  find_package(${name} QUIET CONFIG)
  if(NOT ${name}_FOUND)
    find_package(${name} QUIET)
  endif()
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "${display} not found. Install the Debian package: apt-get install ${apt_package} (or run scripts/setup)")
  endif()
  set(${name}_VERSION "${${name}_VERSION}" PARENT_SCOPE)
endfunction()

# gpuprobe_require_pkgconfig(<prefix> <pkg-config module> <Debian package>): an imported
# target PkgConfig::<prefix>, or stop with the apt package to install.
function(gpuprobe_require_pkgconfig prefix module apt_package)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "${module} not found. Install the Debian package: apt-get install ${apt_package} (or run scripts/setup)")
  endif()
  set(${prefix}_VERSION "${${prefix}_VERSION}" PARENT_SCOPE)
endfunction()
