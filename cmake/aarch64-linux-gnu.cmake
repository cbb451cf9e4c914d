# Cross-building for 64-bit Arm Linux, the tests run by qemu-user (tests/test_fast_arm64.py).
# clang by default: Debian's gcc-aarch64-linux-gnu cannot be installed beside gcc-multilib
# (the 32-bit arena test needs that); clang takes the target's C library and libgcc from
#   apt-get install clang libc6-dev-arm64-cross libgcc-12-dev-arm64-cross \
#       binutils-aarch64-linux-gnu qemu-user
# (-DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc works as well). Then:
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#   ninja -C build-arm64 && (cd build-arm64 && QEMU_CPU=max ctest)
# QEMU_CPU picks the emulated CPU: "max" has the dot-product extension, "cortex-a53" not.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(PL_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "the target's C library")
if(NOT CMAKE_C_COMPILER)
    set(CMAKE_C_COMPILER clang)
endif()
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu) # clang's --target; gcc ignores it

set(CMAKE_FIND_ROOT_PATH ${PL_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

# the target's binutils (binutils-aarch64-linux-gnu) for archives and symbol checks
foreach(tool AR RANLIB NM OBJDUMP)
    string(TOLOWER ${tool} name)
    find_program(CMAKE_${tool} aarch64-linux-gnu-${name})
endforeach()

# ctest (and add_test commands) run the target's programs through qemu-user
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${PL_AARCH64_SYSROOT})
