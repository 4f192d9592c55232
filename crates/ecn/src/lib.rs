//! netlab-ecn (work in progress).
