//! A tack session as a library.
