//! netlab-topology (work in progress).
