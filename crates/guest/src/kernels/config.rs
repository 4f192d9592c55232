//! Kernel configuration files (pure but for [`read_config`]): what a
//! whole `.config` says about the kernel ([`ConfigFacts`]: its hash and
//! compiler), and whether every line of a fragment survived into it
//! ([`lost_lines`]; Kconfig drops what a dependency forbids, silently).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

/// SHA-256 of `data`, lower-case hex.
pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// Reads a configuration file, gunzipping it when it ends in `.gz`.
pub fn read_config(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text)?;
        Ok(text)
    } else {
        String::from_utf8(bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

/// What a whole configuration says about its kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFacts {
    /// SHA-256 of the file's text.
    pub sha256: String,
    /// `CONFIG_CC_VERSION_TEXT` (`gcc (Debian 12.2.0-14+deb12u1) 12.2.0`).
    pub compiler: Option<String>,
}

impl ConfigFacts {
    /// The facts of a configuration's text.
    pub fn of(text: &str) -> ConfigFacts {
        ConfigFacts {
            sha256: sha256_hex(text.as_bytes()),
            compiler: symbols(text)
                .get("CONFIG_CC_VERSION_TEXT")
                .map(|v| v.trim_matches('"').to_owned()),
        }
    }
}

/// Each symbol a configuration sets, with its value (`y`, `m`, `"cubic"`,
/// or `n` for `# CONFIG_X is not set`).
pub fn symbols(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("# ") {
            if let Some(sym) = rest.strip_suffix(" is not set") {
                if sym.starts_with("CONFIG_") {
                    out.insert(sym.to_owned(), "n".to_owned());
                }
            }
        } else if let Some((sym, value)) = line.split_once('=') {
            if sym.starts_with("CONFIG_") {
                out.insert(sym.to_owned(), value.to_owned());
            }
        }
    }
    out
}

/// The lines of `fragment` the final configuration does not hold, as
/// `CONFIG_X=want (got …)`. A symbol the fragment turns off may be absent
/// (Kconfig leaves invisible symbols out).
pub fn lost_lines(fragment: &str, final_config: &str) -> Vec<String> {
    let have = symbols(final_config);
    symbols(fragment)
        .into_iter()
        .filter_map(|(sym, want)| match have.get(&sym) {
            Some(got) if *got == want => None,
            None if want == "n" => None,
            got => Some(format!(
                "{sym}={want} (got {})",
                got.map_or("nothing", String::as_str)
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FINAL: &str = "\
#
# Automatically generated file; DO NOT EDIT.
CONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0-14+deb12u1) 12.2.0\"
CONFIG_NET_SCH_FQ_PIE=m
CONFIG_NET_SCH_PIE=m
# CONFIG_MODULE_COMPRESS is not set
CONFIG_DEFAULT_TCP_CONG=\"cubic\"
";

    #[test]
    fn a_configuration_names_its_compiler() {
        let f = ConfigFacts::of(FINAL);
        assert_eq!(
            f.compiler.as_deref(),
            Some("gcc (Debian 12.2.0-14+deb12u1) 12.2.0")
        );
        assert_eq!(f.sha256, sha256_hex(FINAL.as_bytes()));
        assert_eq!(f.sha256.len(), 64);
        assert_eq!(ConfigFacts::of("CONFIG_X=y\n").compiler, None);
    }

    #[test]
    fn every_fragment_line_is_checked() {
        let kept = "CONFIG_NET_SCH_FQ_PIE=m\n# CONFIG_MODULE_COMPRESS is not set\n\
                    # CONFIG_INVISIBLE is not set\nCONFIG_DEFAULT_TCP_CONG=\"cubic\"\n";
        assert!(lost_lines(kept, FINAL).is_empty());
        let lost =
            "CONFIG_NET_SCH_FQ_PIE=y\nCONFIG_NET_SCH_CAKE=m\n# CONFIG_NET_SCH_PIE is not set\n";
        assert_eq!(
            lost_lines(lost, FINAL),
            [
                "CONFIG_NET_SCH_CAKE=m (got nothing)",
                "CONFIG_NET_SCH_FQ_PIE=y (got m)",
                "CONFIG_NET_SCH_PIE=n (got m)",
            ]
        );
    }

    #[test]
    fn the_committed_fragment_parses_into_symbols() {
        let s = symbols(super::super::UML_6_12.fragment);
        assert_eq!(
            s.get("CONFIG_NET_SCH_FQ_PIE").map(String::as_str),
            Some("m")
        );
        assert_eq!(
            s.get("CONFIG_LOCALVERSION_AUTO").map(String::as_str),
            Some("n")
        );
        // Comments are not symbols.
        assert!(s
            .keys()
            .all(|k| k.starts_with("CONFIG_") && !k.contains(' ')));
    }

    #[test]
    fn debians_configuration_reads_if_installed() {
        let Ok(text) = read_config(Path::new(super::super::DEBIAN_UML_CONFIG)) else {
            return;
        };
        let f = ConfigFacts::of(&text);
        assert!(f.compiler.is_some_and(|c| c.contains("gcc")));
    }
}
