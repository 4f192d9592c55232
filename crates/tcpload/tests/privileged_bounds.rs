//! Bounded waits with a silent other side, over loopback (no
//! privilege needed, so these always run):
//! - a sender whose receiver accepts and never reads ends by its lifetime
//!   (+ 1 s);
//! - B's receiver with a sender that connects and never sends ends by its
//!   duration (+ 1 s).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use netlab_tcpload::{
    new_sender_socket, Sender, SenderConfig, Sink, SinkConfig, TcpEnd, Termination,
};

#[test]
fn privileged_bounds_sender_whose_receiver_stops_reading_ends_by_its_lifetime() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    let to = listener.local_addr().unwrap();
    // Accepts, then holds the connection without ever reading.
    listener.set_nonblocking(false).unwrap();
    let holder = std::thread::spawn(move || {
        let (conn, _) = listener.accept().expect("accept");
        std::thread::sleep(Duration::from_secs(4));
        drop(conn);
    });
    let mut cfg = SenderConfig::new(to);
    cfg.lifetime = Duration::from_secs(3);
    let sock = new_sender_socket(&cfg.cc, to).expect("sender socket");
    let t0 = Instant::now();
    let sender = Sender::connect(sock, cfg.clone(), t0).expect("connect");
    let log = sender.run();
    let took = t0.elapsed();
    holder.join().unwrap();
    assert!(
        took <= cfg.lifetime + Duration::from_secs(1),
        "the sender ran {took:?}, past its lifetime {:?} + 1 s",
        cfg.lifetime
    );
    assert_eq!(log.termination, Termination::Deadline, "{log:?}");
    assert!(log.bytes_accepted > 0, "it wrote until the buffers filled");
    // Time since t0 when the write loop ended, as the sender's log has it.
    assert!(
        log.end_s <= cfg.lifetime.as_secs_f64() + 1.0,
        "end_s {} past the lifetime",
        log.end_s
    );
    println!(
        "sender vs non-reading receiver: {} bytes accepted, {} stalls, ended after {took:?}",
        log.bytes_accepted,
        log.send_stalls_s.len()
    );
}

#[test]
fn privileged_bounds_receiver_with_a_silent_sender_ends_by_its_duration() {
    let mut cfg = SinkConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)));
    cfg.duration = Duration::from_secs(2);
    let sink = Sink::bind(cfg).expect("sink");
    let addr = sink.local_addr().unwrap();
    let end = sink.end();
    // Connects and never sends (kept open until after the sink's end).
    let silent = TcpStream::connect(addr).expect("connect");
    let log = sink.run::<()>().expect("sink run");
    let late = Instant::now().saturating_duration_since(end);
    drop(silent);
    assert!(
        late <= Duration::from_secs(1),
        "the receiver ended {late:?} after its end"
    );
    assert_eq!(log.bytes_total, 0);
    assert_eq!(log.tcp_end, TcpEnd::ClosedAtEnd, "{log:?}");
}
