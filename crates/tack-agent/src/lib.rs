//! tack-agent
