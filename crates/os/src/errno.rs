//! Symbolic errno names for error messages.

/// `ENOENT` for 2, and so on; `errno N` for a number the platform does
/// not name.
pub fn errno_name(errno: i32) -> String {
    let e = nix::errno::Errno::from_raw(errno);
    if e == nix::errno::Errno::UnknownErrno {
        format!("errno {errno}")
    } else {
        format!("{e:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(errno_name(2), "ENOENT");
        assert_eq!(errno_name(17), "EEXIST");
        assert_eq!(errno_name(95), "EOPNOTSUPP");
        assert_eq!(errno_name(100_000), "errno 100000");
    }
}
