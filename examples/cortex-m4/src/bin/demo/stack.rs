//! Stack painting: fill the unused stack below the caller with a pattern, run a function, and
//! find the deepest word it overwrote. This is how the firmware measures the worst-case stack
//! of verification on the real target instead of estimating it.

use core::ptr::{addr_of, read_volatile, write_volatile};

extern "C" {
    /// The end of the statics (`.bss`, `.uninit`): cortex-m-rt's linker script defines it.
    static __sheap: u32;
}

/// The pattern painted below the stack pointer.
const PAINT: u32 = 0xF1A7_B0FF;
/// How far below the stack pointer to paint: more than any measured use.
const WINDOW: usize = 64 * 1024;
/// Left unpainted just below the stack pointer, for `measure`'s own calls.
const MARGIN: usize = 256;

/// Runs `f` and returns its result with the bytes of stack it used below this function.
#[inline(never)]
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let sp = cortex_m::register::msp::read() as usize;
    // Only the linker symbol's address is taken; the symbol itself is never read.
    let statics_end = addr_of!(__sheap) as usize;
    let top = sp - MARGIN;
    let bottom = statics_end.max(sp - WINDOW);
    for addr in (bottom..top).step_by(4) {
        // SAFETY: [bottom, top) lies between the end of the statics and the stack pointer,
        // where nothing lives: the stack grows down into it, and there are no interrupts or
        // heap. `addr` is 4-aligned (the stack pointer and `__sheap` are 8-aligned).
        unsafe { write_volatile(addr as *mut u32, PAINT) };
    }
    let result = f();
    let mut deepest = top;
    for addr in (bottom..top).step_by(4) {
        // SAFETY: as above; the words are plain memory painted a moment ago.
        if unsafe { read_volatile(addr as *const u32) } != PAINT {
            deepest = addr;
            break;
        }
    }
    (result, sp - deepest)
}
