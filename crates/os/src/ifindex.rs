//! Interface index lookup (safe: nix's `if_nametoindex`).

use crate::SysError;

/// The index of interface `name` in the calling thread's network namespace.
pub fn ifindex(name: &str) -> Result<u32, SysError> {
    match nix::net::if_::if_nametoindex(name) {
        Ok(0) => Err(SysError::NoSuchInterface {
            name: name.to_owned(),
        }),
        Ok(i) => Ok(i),
        Err(nix::errno::Errno::ENODEV) | Err(nix::errno::Errno::EINVAL) => {
            Err(SysError::NoSuchInterface {
                name: name.to_owned(),
            })
        }
        Err(e) => Err(SysError::io(format!("if_nametoindex({name:?})"), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_one_and_unknown_names_fail() {
        assert_eq!(ifindex("lo").unwrap(), 1);
        assert!(matches!(
            ifindex("nl-no-such-if"),
            Err(SysError::NoSuchInterface { .. })
        ));
        assert!(ifindex("bad\0name").is_err());
    }
}
