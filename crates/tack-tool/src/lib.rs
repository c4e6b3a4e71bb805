//! tack-tool
