//! How much memory the current thread holds: a global allocator wrapper that counts, per
//! thread, the bytes it allocated minus the bytes it freed. The template sandbox
//! ([`crate::documents::render::sandbox`]) reads it to stop a template that grows without bound; the
//! `readout` binary installs it over mimalloc. Without it installed the count stays 0 and the
//! sandbox's memory limit is not enforced (its other limits are).

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

thread_local! {
    // Const-initialised and without a destructor: usable from inside the allocator.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

/// A global allocator that counts each thread's live bytes, over allocator `A`.
pub struct Metered<A>(pub A);

fn add(delta: isize) {
    let _ = LIVE.try_with(|c| c.set(c.get().wrapping_add(delta)));
}

// SAFETY: every call is passed to `A` unchanged; only a thread-local counter is updated.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Metered<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { self.0.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is passed on.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Bytes this thread allocated minus the bytes it freed since it started (memory freed on
/// another thread counts there). Always 0 when [`Metered`] is not the global allocator.
pub fn thread_live_bytes() -> isize {
    LIVE.try_with(Cell::get).unwrap_or(0)
}

/// What the binary does to its allocator once a build knows its inputs are large (set by
/// `main.rs`, which owns the allocator; nothing when unset, as in tests).
static LARGE_INPUTS: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets what [`large_inputs`] does; only the first call counts.
pub fn on_large_inputs(hook: fn()) {
    let _ = LARGE_INPUTS.set(hook);
}

/// Tells the binary's allocator that a build's inputs are large (`cmd`, with the switch from
/// huge pages): the binary then returns freed memory to the system again, which a small build
/// does not (docs/PERFORMANCE.md, items 33 and 48).
pub fn large_inputs() {
    if let Some(hook) = LARGE_INPUTS.get() {
        hook();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    /// Large inputs reach the hook the binary set, each time they are found; a second hook
    /// is ignored.
    #[test]
    fn large_inputs_reach_the_binary_hook() {
        super::on_large_inputs(|| {
            CALLS.fetch_add(1, Ordering::Relaxed);
        });
        super::on_large_inputs(|| {
            CALLS.fetch_add(100, Ordering::Relaxed);
        });
        super::large_inputs();
        super::large_inputs();
        assert_eq!(CALLS.load(Ordering::Relaxed), 2);
    }
}
