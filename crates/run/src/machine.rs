//! Where a scenario runs, for its `ran_on` record: this
//! machine's hostname, CPU model and kernel release. Inside the guest the
//! hostname and CPU model are the host's, passed in [`HOST_MACHINE_ENV`].

use netlab_results::RanOn;

/// Set by the host for the run inside the guest: the host's hostname and
/// CPU model, tab-separated (the guest's own are `(none)` and `UML`).
pub const HOST_MACHINE_ENV: &str = "NETLAB_HOST_MACHINE";

/// This machine's hostname and CPU model (`/proc/cpuinfo`'s first
/// `model name`), as the host passes them to its guest.
pub fn machine() -> (String, String) {
    let cpu_model = netlab_os::proc::cpu_model().unwrap_or_else(|| "unknown".into());
    let hostname = nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "unknown".into());
    (hostname, cpu_model)
}

/// This machine, now. Inside the guest the hostname and CPU model are the
/// host's (what a figure's comparability depends on), the kernel release
/// the guest's (the kernel that ran the scenario).
pub fn ran_on(started_utc: String) -> RanOn {
    let (hostname, cpu_model) = std::env::var(HOST_MACHINE_ENV)
        .ok()
        .and_then(|v| {
            let (h, c) = v.split_once('\t')?;
            Some((h.to_string(), c.to_string()))
        })
        .unwrap_or_else(machine);
    RanOn {
        hostname,
        kernel_release: netlab_os::kernel_release().unwrap_or_default(),
        cpu_model,
        netlab_version: env!("CARGO_PKG_VERSION").into(),
        started_utc,
    }
}
