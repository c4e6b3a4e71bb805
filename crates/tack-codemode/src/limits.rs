//! How much one run may use, and how a size reads in a message.

use std::fmt;
use std::time::Duration;

/// The limits of one run. Every limit is named in the [`CodeError`] (or, for
/// the output, the note) it causes when it is hit.
///
/// [`CodeError`]: crate::CodeError
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Memory the engine may allocate, in bytes (QuickJS's own count: the
    /// heap, the program's source and bytecode, strings, objects). Default
    /// 64 MiB. `0` means no limit (QuickJS's meaning).
    pub memory_bytes: usize,
    /// How long the run may take from start to end, time spent waiting for
    /// tool calls included. Default 30 s.
    pub wall_time: Duration,
    /// How much native stack the program's JavaScript calls may use, in
    /// bytes. Default 1 MiB: enough for a few thousand nested calls, and well
    /// inside the 2 MiB of a tokio worker thread.
    ///
    /// It must stay well below the stack of the thread that polls the run
    /// (QuickJS checks it against the stack pointer, and the engine's own
    /// Rust frames sit on the same stack): past that, deep recursion
    /// overflows the real stack and aborts the process instead of throwing a
    /// `RangeError`. `0` disables the check: never use it.
    pub stack_bytes: usize,
    /// Tool calls (and `tools.search` requests) one run may make. Default 100.
    pub max_calls: u32,
    /// Bytes of console output kept; what is printed past it is counted and
    /// dropped. Default 1 MiB.
    pub max_output_bytes: usize,
}

impl Limits {
    /// 64 MiB.
    pub const DEFAULT_MEMORY_BYTES: usize = 64 * MIB;
    /// 30 seconds.
    pub const DEFAULT_WALL_TIME: Duration = Duration::from_secs(30);
    /// 1 MiB.
    pub const DEFAULT_STACK_BYTES: usize = MIB;
    /// 100 calls.
    pub const DEFAULT_MAX_CALLS: u32 = 100;
    /// 1 MiB.
    pub const DEFAULT_MAX_OUTPUT_BYTES: usize = MIB;
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_bytes: Self::DEFAULT_MEMORY_BYTES,
            wall_time: Self::DEFAULT_WALL_TIME,
            stack_bytes: Self::DEFAULT_STACK_BYTES,
            max_calls: Self::DEFAULT_MAX_CALLS,
            max_output_bytes: Self::DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// A byte count as a person reads it: `64 MiB`, `512 KiB`, `1000 bytes`
/// (exact: a size that is not a whole number of KiB or MiB is given in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bytes(pub usize);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n >= MIB && n.is_multiple_of(MIB) {
            write!(f, "{} MiB", n / MIB)
        } else if n >= KIB && n.is_multiple_of(KIB) {
            write!(f, "{} KiB", n / KIB)
        } else {
            write!(f, "{n} bytes")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_whole_units_or_exact_counts() {
        assert_eq!(Bytes(64 * MIB).to_string(), "64 MiB");
        assert_eq!(Bytes(512 * KIB).to_string(), "512 KiB");
        assert_eq!(Bytes(1000).to_string(), "1000 bytes");
        assert_eq!(Bytes(MIB + 1).to_string(), format!("{} bytes", MIB + 1));
    }
}
