/*
 * Startup code for the emulated boards of puretree.mcu (Cortex-M0, M3, M4F, M7).
 *
 * The vector table holds the initial stack pointer and the reset handler; every fault
 * ends the program through semihosting (QEMU then exits with a non-zero status) instead
 * of spinning, so a crash fails a check at once rather than hanging it.
 * Reset: copy .data from flash, zero .bss, give the FPU full access (cores with one),
 * open newlib's semihosting handles (librdimon), run main and exit with its status.
 */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end, __stack_top;
int main(void);
void initialise_monitor_handles(void);

/* SYS_EXIT (0x18), reason ADP_Stopped_RunTimeErrorUnknown: QEMU stops with status 1. */
static void fault_exit(void)
{
    register uint32_t r0 __asm__("r0") = 0x18u;
    register uint32_t r1 __asm__("r1") = 0x20023u;
    __asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
    for (;;) {
    }
}

void Fault_Handler(void)
{
    fault_exit();
}

void Reset_Handler(void)
{
    uint32_t *src = &__data_load;
    uint32_t *dst = &__data_start;
    while (dst < &__data_end) {
        *dst++ = *src++;
    }
    for (dst = &__bss_start; dst < &__bss_end; dst++) {
        *dst = 0u;
    }
#if defined(__ARM_FP)
    /* CPACR: CP10 and CP11 (the FPU) full access, before any floating-point instruction. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    initialise_monitor_handles();
    exit(main());
}

/* Initial stack pointer, reset, NMI, HardFault, MemManage, BusFault, UsageFault, 4 reserved,
 * SVCall, DebugMonitor, reserved, PendSV, SysTick. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&__stack_top, Reset_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, Fault_Handler, 0, 0, 0, 0,
    Fault_Handler, Fault_Handler, 0, Fault_Handler, Fault_Handler,
};
