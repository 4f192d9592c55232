//! netlab-guest (work in progress).
