//! `netlab-guest-init`: the init (PID 1) of a netlab guest kernel.
//!
//! Started by the kernel as `netlab-guest-init [...] --spec PATH`; refuses
//! to do anything unless it is PID 1. See `netlab_guest::init`.

fn main() {
    netlab_guest::init::main_from_args(std::env::args_os())
}
