# arm-none-eabi.cmake - CMake toolchain for bare-metal Arm Cortex-M with Debian's
# gcc-arm-none-eabi + libnewlib-arm-none-eabi. PL_MCU_CPU picks the core:
#   cortex-m4f (default; hard float), cortex-m4, cortex-m3, cortex-m0plus, cortex-m7f ...
#   cmake -S . -B build-m4 -G Ninja -DCMAKE_TOOLCHAIN_FILE=tests/mcu/arm-none-eabi.cmake \
#         -DPL_MCU_CPU=cortex-m4f -DCMAKE_BUILD_TYPE=MinSizeRel
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_SIZE arm-none-eabi-size)
# no startup files to link a test program with: configure checks compile a library instead
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(PL_MCU_CPU cortex-m4f CACHE STRING "picolite: the Cortex-M core to build for")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PL_MCU_CPU)
if(PL_MCU_CPU MATCHES "^(cortex-m[0-9a-z]+)f$")
    set(PL_MCU_ARCH_FLAGS "-mcpu=${CMAKE_MATCH_1} -mthumb -mfloat-abi=hard")
    if(PL_MCU_CPU STREQUAL "cortex-m4f")
        string(APPEND PL_MCU_ARCH_FLAGS " -mfpu=fpv4-sp-d16")
    else()
        string(APPEND PL_MCU_ARCH_FLAGS " -mfpu=auto")
    endif()
else()
    set(PL_MCU_ARCH_FLAGS "-mcpu=${PL_MCU_CPU} -mthumb -mfloat-abi=soft")
endif()

set(CMAKE_C_FLAGS_INIT "${PL_MCU_ARCH_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "${PL_MCU_ARCH_FLAGS} -nostartfiles --specs=nano.specs -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
