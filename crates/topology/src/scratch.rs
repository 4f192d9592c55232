//! A throw-away namespace for tests (cargo features `testing` and `net`;
//! exported as `testing::ScratchNetns`).

use crate::naming::{sanitize_label, RunId, PREFIX};
use crate::netns::Netns;
use crate::TopologyError;

/// Test helper: a namespace with a unique `nl-<runid>-<tag>` name, deleted
/// on drop.
#[derive(Debug)]
pub struct ScratchNetns {
    ns: Option<Netns>,
}

impl ScratchNetns {
    /// Creates a fresh namespace; `tag` is sanitised into the name.
    pub fn new(tag: &str) -> Result<ScratchNetns, TopologyError> {
        let tag = sanitize_label(tag);
        let mut last = None;
        for _ in 0..8 {
            let name = format!("{PREFIX}{}-{tag}", RunId::random());
            match Netns::create(&name) {
                Ok(ns) => return Ok(ScratchNetns { ns: Some(ns) }),
                Err(e) if e.raw_os_error() == Some(nix::libc::EEXIST) => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.expect("loop ran"))
    }

    /// The namespace.
    pub fn netns(&self) -> &Netns {
        self.ns.as_ref().expect("present until drop")
    }

    /// Its name.
    pub fn name(&self) -> &str {
        self.netns().name()
    }
}

impl std::ops::Deref for ScratchNetns {
    type Target = Netns;
    fn deref(&self) -> &Netns {
        self.netns()
    }
}

impl Drop for ScratchNetns {
    fn drop(&mut self) {
        if let Some(ns) = self.ns.take() {
            let name = ns.name().to_owned();
            if let Err(e) = ns.delete() {
                eprintln!("ScratchNetns: deleting {name} failed: {e}");
            }
        }
    }
}
