//! netlab-receipts (work in progress).
