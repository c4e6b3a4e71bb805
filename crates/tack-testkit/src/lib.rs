//! Strict mock model APIs (work in progress).
