//! netlab-qdisc (work in progress).
