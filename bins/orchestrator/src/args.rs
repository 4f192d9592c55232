//! The value parser of the flags that are neither an experiment's values
//! (`netlab_experiment::flags`) nor `diff`'s gates
//! (`netlab_report::diff::ChangeGate`): addresses. Pure: text in, a typed
//! value or the reason out.

use std::net::SocketAddr;

/// `ADDR:PORT`.
pub fn addr(text: &str) -> Result<SocketAddr, String> {
    text.trim()
        .parse()
        .map_err(|e| format!("{e} (expected ADDR:PORT)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_take_addr_and_port_and_refuse_the_rest() {
        assert!(addr("127.0.0.1").is_err());
        assert_eq!(addr("127.0.0.1:9").map(|a| a.port()), Ok(9));
    }
}
