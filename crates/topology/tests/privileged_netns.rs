//! Privileged: namespaces are created, entered, seen by `ip netns`, deleted.

use netlab_topology::netns::{self, Netns};
use netlab_topology::testing::{require_privileged, ScratchNetns};

fn ip_netns_list() -> String {
    let out = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip netns list");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn thread_netns_inode() -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/thread-self/ns/net").unwrap().ino()
}

#[test]
fn privileged_netns_create_enter_delete() {
    if !require_privileged("privileged_netns_create_enter_delete") {
        return;
    }
    let scratch = ScratchNetns::new("netns_basic").unwrap();
    let name = scratch.name().to_owned();
    assert!(name.starts_with("nl-"));
    assert!(netns::exists(&name));
    assert!(netns::list().unwrap().contains(&name));
    assert!(
        ip_netns_list().contains(&name),
        "ip netns does not see {name}"
    );

    // run: borrows, enters another namespace than the host's
    use std::os::unix::fs::MetadataExt;
    let host = thread_netns_inode();
    let want = std::fs::metadata(scratch.path()).unwrap().ino();
    let inside = scratch.run(thread_netns_inode).unwrap();
    assert_ne!(host, inside);
    assert_eq!(inside, want);
    // only lo, and it is down
    let links = scratch
        .run(|| std::fs::read_to_string("/proc/thread-self/net/dev").unwrap())
        .unwrap();
    assert_eq!(links.lines().count(), 3, "{links}");

    // a socket made inside stays inside
    let sock = scratch
        .run(|| std::net::UdpSocket::bind("0.0.0.0:0"))
        .unwrap()
        .unwrap();
    drop(sock);

    // spawn
    let h = scratch.spawn("nl-test-spawn", thread_netns_inode).unwrap();
    assert_eq!(h.join().unwrap(), want);

    // open + explicit delete
    let opened = Netns::open(&name).unwrap();
    assert_eq!(opened.name(), name);
    drop(opened);
    drop(scratch);
    assert!(!netns::exists(&name));
    assert!(!ip_netns_list().contains(&name));
}

#[test]
fn privileged_netns_create_twice_fails_and_delete_confirms() {
    if !require_privileged("privileged_netns_create_twice_fails_and_delete_confirms") {
        return;
    }
    let name = format!("nl-{}-twice", netlab_topology::RunId::random());
    let ns = Netns::create(&name).unwrap();
    let e = Netns::create(&name).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc_eexist()), "{e}");
    assert!(
        netns::exists(&name),
        "failed create must not remove the first"
    );
    ns.delete().unwrap();
    assert!(!netns::exists(&name));
    let e = netns::delete(&name).unwrap_err();
    assert!(e.to_string().contains(&name), "{e}");
}

fn libc_eexist() -> i32 {
    17
}
