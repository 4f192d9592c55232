//! `INET_DIAG_INFO` payloads into `netlab_tcpload::TcpInfoView`.
//!
//! Input: the attribute's value (a kernel `struct tcp_info`).
//! Properties: never panics; a view exists exactly when the buffer is long
//! enough for the required fields, and the decoded struct survives a JSON
//! round trip (it is written to results files).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netlab_tcpload::{TcpInfo, TcpInfoView};

fuzz_target!(|data: &[u8]| {
    let Ok(view) = TcpInfoView::new(data) else {
        return;
    };
    assert_eq!(view.len(), data.len());
    let info = view.decode();
    let json = serde_json::to_string(&info).unwrap();
    let back: TcpInfo = serde_json::from_str(&json).unwrap();
    assert_eq!(back, info);
});
