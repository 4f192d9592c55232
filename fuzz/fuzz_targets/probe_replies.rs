//! Echo replies, as the probe client receives them, into
//! `netlab_probe::ProbeClient` (method §5.2 schedule, default config) and the
//! resulting requests into `all_phase_stats`.
//!
//! The reply "parser" itself is the 4-byte check in `run_probe` (a datagram
//! of exactly 4 bytes is a big-endian sequence number, anything else is
//! malformed); it is private to the socket loop, so this target applies the
//! same rule and fuzzes what the bytes drive: `on_reply` with hostile
//! sequence numbers at hostile times.
//!
//! Input: records `[advance_ms: u8][datagram_len: u8][datagram bytes]`;
//! before each datagram the client's clock advances and it is polled (sends
//! happen as the schedule says).
//! Properties: never panics; requests stay in send order with seq == index;
//! a reply's RTT is below the timeout.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use netlab_probe::{all_phase_stats, ProbeAction, ProbeClient, ProbeConfig, RequestOutcome};

fuzz_target!(|data: &[u8]| {
    let cfg = ProbeConfig::default();
    let timeout = cfg.timeout;
    let mut client = ProbeClient::new(cfg).unwrap();
    let mut now = Duration::ZERO;
    let mut rest = data;
    let (mut accepted, mut malformed) = (0u64, 0u64);
    while rest.len() >= 2 {
        now += Duration::from_millis(u64::from(rest[0]));
        let len = usize::from(rest[1]).min(rest.len() - 2);
        let datagram = &rest[2..2 + len];
        rest = &rest[2 + len..];
        while let ProbeAction::Send { .. } = client.poll(now) {}
        if let Ok(seq) = <[u8; 4]>::try_from(datagram) {
            if let netlab_probe::ReplyVerdict::Accepted { rtt_ms } =
                client.on_reply(u32::from_be_bytes(seq), now)
            {
                assert!(rtt_ms >= 0.0 && rtt_ms < timeout.as_secs_f64() * 1e3);
                accepted += 1;
            }
        } else {
            malformed += 1;
        }
        while client.poll_completed().is_some() {}
    }
    let _ = malformed;
    client.abandon();
    let (requests, _stale) = client.into_parts();
    for (i, r) in requests.iter().enumerate() {
        assert_eq!(r.seq as usize, i);
    }
    let replies = requests
        .iter()
        .filter(|r| r.outcome == RequestOutcome::Reply)
        .count() as u64;
    assert_eq!(replies, accepted);
    let _ = all_phase_stats(&requests, timeout);
});
