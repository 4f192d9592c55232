//! netlab-tcpload (work in progress).
