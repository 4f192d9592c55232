//! netlab-probe (work in progress).
