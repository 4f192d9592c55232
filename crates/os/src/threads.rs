//! Threads started once and reused (docs/method.md §3.5): a worker that
//! ends parks its thread, and the next worker takes it instead of
//! starting one. Under user-mode Linux a thread start cost 2-18 ms, more
//! the more threads the process had, three of them a flow, so a 16-flow
//! scenario spent half a second starting threads before t0; handing a
//! job to a parked thread costs about 0.3 ms there.
//!
//! A job runs in the network namespace it names, or in the process's own
//! one (the one it was in before any of its threads entered another,
//! opened at the first entry). Each job enters
//! its namespace on its own, and its thread goes back to the process's
//! namespace as soon as the job ends, so a parked thread holds no
//! scenario's namespace alive (a namespace whose last thread left is
//! freed by the kernel with its links). A thread that cannot go back
//! ends instead of parking. A parked thread ends after [`IDLE`] without
//! a job.

use std::collections::VecDeque;
use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use nix::sched::{setns, CloneFlags};

/// How long a parked thread waits for a job before it ends.
pub const IDLE: Duration = Duration::from_secs(30);

/// What a parked thread runs: enters the job's namespace, runs it.
type Job = Box<dyn FnOnce(&File) + Send>;

/// The parked threads and the jobs handed to them.
struct Pool {
    /// The process's own namespace, where a thread returns after each job.
    home: File,
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// Jobs handed to parked threads, not yet taken.
    queue: VecDeque<Job>,
    /// Parked threads not yet promised a job.
    idle: usize,
    /// Threads the pool has (parked or running a job).
    started: usize,
    /// Threads kept past [`IDLE`]: the sum of the live [`Reserved`]s.
    keep: usize,
}

static POOL: OnceLock<Result<Pool, String>> = OnceLock::new();

fn pool() -> std::io::Result<&'static Pool> {
    POOL.get_or_init(|| {
        origin()
            .and_then(File::try_clone)
            .map(|home| Pool {
                home,
                state: Mutex::new(State::default()),
                wake: Condvar::new(),
            })
            .map_err(|e| format!("the process's own namespace: {e}"))
    })
    .as_ref()
    .map_err(|e| std::io::Error::other(e.clone()))
}

static ORIGIN: OnceLock<Result<File, String>> = OnceLock::new();

/// The namespace the process started in, opened before any of its
/// threads first entered another one: every entry goes through
/// [`in_netns`], [`keeping_netns`] or the pool, and each opens it first.
fn origin() -> std::io::Result<&'static File> {
    ORIGIN
        .get_or_init(|| File::open(THREAD_NS).map_err(|e| format!("opening {THREAD_NS}: {e}")))
        .as_ref()
        .map_err(|e| std::io::Error::other(e.clone()))
}

/// The calling thread's own network namespace.
const THREAD_NS: &str = "/proc/thread-self/ns/net";

/// Runs `f` on the calling thread, which is moved back into the network
/// namespace it is in now once `f` returns or panics: `f` may enter
/// another namespace (`setns`) or make one (`unshare`). Entering a
/// namespace on the caller's own thread costs two `setns` (0.1-0.2 ms
/// under user-mode Linux), where a thread of its own cost 2-18 ms there,
/// more the more threads the process has. A thread that could not go
/// back would do the caller's next work in the wrong namespace, so the
/// process aborts instead, saying why.
pub fn keeping_netns<T>(f: impl FnOnce() -> T) -> std::io::Result<T> {
    origin()?;
    let back = File::open(THREAD_NS)?;
    struct Back(File);
    impl Drop for Back {
        fn drop(&mut self) {
            if let Err(e) = go_home(&self.0) {
                eprintln!(
                    "netlab: a thread could not go back to its network namespace ({e}); \
                     stopping rather than working in the wrong one"
                );
                std::process::abort();
            }
        }
    }
    let _back = Back(back);
    Ok(f())
}

/// Runs `f` on the calling thread inside the namespace open as `netns`,
/// and moves the thread back where it was ([`keeping_netns`]). An error
/// when the namespace could not be entered; `f` then never runs.
pub fn in_netns<T>(netns: &File, f: impl FnOnce() -> T) -> std::io::Result<T> {
    keeping_netns(|| {
        setns(netns, CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from)?;
        Ok(f())
    })?
}

/// A job running on a pooled thread: joined like a thread.
#[derive(Debug)]
pub struct Pooled<T> {
    result: Receiver<std::thread::Result<T>>,
    done: Arc<AtomicBool>,
}

impl<T> Pooled<T> {
    /// Waits for the job; a panic in it is `Err` with its payload, as
    /// [`std::thread::JoinHandle::join`] gives it.
    pub fn join(self) -> std::thread::Result<T> {
        self.result
            .recv()
            .unwrap_or_else(|_| Err(Box::new("its thread ended without an answer")))
    }

    /// Whether the job has ended ([`Pooled::join`] then returns at once).
    pub fn is_finished(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }
}

/// Runs `f` on a pooled thread named `name` (up to 15 bytes show), inside
/// the namespace open as `netns` or, without one, in the process's own.
/// Returns once the thread is in that namespace; an error when it could
/// not enter it (`f` then never runs) or no thread could be started.
pub fn spawn_pooled<T, F>(name: &str, netns: Option<&File>, f: F) -> std::io::Result<Pooled<T>>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let pool = pool()?;
    let netns = netns.map(File::try_clone).transpose()?;
    let (entered_tx, entered_rx) = mpsc::sync_channel::<std::io::Result<()>>(1);
    let (result_tx, result) = mpsc::channel();
    let done = Arc::new(AtomicBool::new(false));
    let finished = done.clone();
    let name = name.to_owned();
    let job: Job = Box::new(move |home: &File| {
        let _ = nix::sys::prctl::set_name(&thread_name(&name));
        let entered = match &netns {
            Some(ns) => setns(ns, CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from),
            None => go_home(home),
        };
        drop(netns);
        let ok = entered.is_ok();
        let _ = entered_tx.send(entered);
        if !ok {
            // `f` must not run in the wrong namespace.
            return;
        }
        let out = catch_unwind(AssertUnwindSafe(f));
        finished.store(true, Ordering::Release);
        let _ = result_tx.send(out);
    });
    hand(pool, job)?;
    match entered_rx.recv() {
        Ok(Ok(())) => Ok(Pooled { result, done }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(std::io::Error::other(
            "the pooled thread ended before its job",
        )),
    }
}

/// The thread's name as the kernel keeps it: at most 15 bytes, no NUL.
fn thread_name(name: &str) -> std::ffi::CString {
    let mut end = name.len().min(15);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    let cut: String = name[..end].chars().filter(|c| *c != '\0').collect();
    std::ffi::CString::new(cut).unwrap_or_default()
}

/// Moves the calling thread into the namespace open as `home`, unless it
/// is there already (so a thread that never left needs no privilege).
fn go_home(home: &File) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let here = std::fs::metadata(THREAD_NS)?;
    let there = home.metadata()?;
    if (here.dev(), here.ino()) == (there.dev(), there.ino()) {
        return Ok(());
    }
    setns(home, CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from)
}

/// Gives `job` to a parked thread, or to a new one when none is parked.
fn hand(pool: &'static Pool, job: Job) -> std::io::Result<()> {
    let mut state = pool.state.lock().unwrap_or_else(|p| p.into_inner());
    if state.idle > 0 {
        state.idle -= 1;
        state.queue.push_back(job);
        drop(state);
        pool.wake.notify_one();
        return Ok(());
    }
    drop(state);
    hand_new(pool, job)
}

/// Starts a new thread of the pool with `job` as its first.
fn hand_new(pool: &'static Pool, job: Job) -> std::io::Result<()> {
    pool.state.lock().unwrap_or_else(|p| p.into_inner()).started += 1;
    let started = std::thread::Builder::new()
        .name("netlab-pool".into())
        .spawn(move || park_loop(pool, job));
    match started {
        Ok(_) => Ok(()),
        Err(e) => {
            let mut state = pool.state.lock().unwrap_or_else(|p| p.into_inner());
            state.started -= 1;
            Err(e)
        }
    }
}

/// A pooled thread: its first job, then each job handed to it, until it
/// waited [`IDLE`] for none or could not go back to the process's
/// namespace.
fn park_loop(pool: &'static Pool, first: Job) {
    let mut job = first;
    loop {
        job(&pool.home);
        // Back home: the scenario's namespace is not held by a parked
        // thread, and the next job starts from a known one.
        if go_home(&pool.home).is_err() {
            let mut state = pool.state.lock().unwrap_or_else(|p| p.into_inner());
            state.started -= 1;
            return;
        }
        let _ = nix::sys::prctl::set_name(c"netlab-pool");
        let mut state = pool.state.lock().unwrap_or_else(|p| p.into_inner());
        state.idle += 1;
        job = loop {
            if let Some(next) = state.queue.pop_front() {
                break next;
            }
            let (s, waited) = pool
                .wake
                .wait_timeout(state, IDLE)
                .unwrap_or_else(|p| p.into_inner());
            state = s;
            if waited.timed_out() && state.queue.is_empty() && state.started > state.keep {
                // Nobody promised this thread a job, and no reservation
                // keeps it: it leaves the count.
                state.idle -= 1;
                state.started -= 1;
                return;
            }
        };
    }
}

/// Threads kept started while it lives ([`reserve`]).
#[derive(Debug)]
#[must_use = "the threads are kept only while the reservation lives"]
pub struct Reserved {
    n: usize,
}

/// Starts threads until the pool has at least `n` more to keep than
/// before, and keeps them parked (past [`IDLE`]) while the returned
/// reservation lives: a run reserves what its largest scenario runs at
/// once before its first scenario, so no scenario starts a thread (a
/// reservation only counts threads; any job may take any of them).
/// Dropped, its threads end after [`IDLE`] without a job.
pub fn reserve(n: usize) -> std::io::Result<Reserved> {
    let pool = pool()?;
    let missing = {
        let mut state = pool.state.lock().unwrap_or_else(|p| p.into_inner());
        state.keep += n;
        state.keep.saturating_sub(state.started)
    };
    let reserved = Reserved { n };
    for _ in 0..missing {
        // A thread whose first job is nothing: it parks at once.
        let (parked_tx, parked) = mpsc::sync_channel::<()>(1);
        hand_new(
            pool,
            Box::new(move |_| {
                let _ = parked_tx.send(());
            }),
        )?;
        let _ = parked.recv();
    }
    // Each has ended its first job; wait (bounded) until they are parked,
    // so the next job takes one of them rather than starting another.
    let until = std::time::Instant::now() + Duration::from_secs(1);
    while pool.state.lock().unwrap_or_else(|p| p.into_inner()).idle < missing
        && std::time::Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(reserved)
}

impl Drop for Reserved {
    fn drop(&mut self) {
        if let Ok(pool) = pool() {
            let mut state = pool.state.lock().unwrap_or_else(|p| p.into_inner());
            state.keep = state.keep.saturating_sub(self.n);
        }
    }
}

/// Threads the pool has now (parked or running a job).
pub fn pooled_threads() -> usize {
    match pool() {
        Ok(p) => p.state.lock().unwrap_or_else(|p| p.into_inner()).started,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_returns_its_value_and_a_panic_its_payload() {
        let v = spawn_pooled("answer", None, || 6 * 7).unwrap();
        assert_eq!(v.join().unwrap(), 42);
        let p = spawn_pooled("boom", None, || -> u8 { panic!("boom") }).unwrap();
        let payload = p.join().unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"));
    }

    #[test]
    fn a_parked_thread_is_taken_instead_of_a_new_one() {
        // Sequential jobs on a pool nobody else is using heavily: after the
        // first, the next ones find its thread parked. Other tests of this
        // binary may run beside it, so count what this test added at most.
        let before = pooled_threads();
        for i in 0..20 {
            let h = spawn_pooled("seq", None, move || i).unwrap();
            assert_eq!(h.join().unwrap(), i);
            // The job's end and the thread's parking are two steps: wait
            // (bounded) until it is parked before handing the next.
            let until = std::time::Instant::now() + Duration::from_secs(5);
            while pool().unwrap().state.lock().unwrap().idle == 0
                && std::time::Instant::now() < until
            {
                std::thread::yield_now();
            }
        }
        assert!(
            pooled_threads() <= before + 3,
            "20 sequential jobs started {} threads",
            pooled_threads() - before
        );
    }

    #[test]
    fn concurrent_jobs_each_get_a_thread_and_is_finished_tells_the_end() {
        let (go_tx, go) = mpsc::channel::<()>();
        let go = Arc::new(Mutex::new(go));
        let waiting: Vec<_> = (0..4)
            .map(|i| {
                let go = go.clone();
                spawn_pooled("wait", None, move || {
                    let _ = go.lock().unwrap().recv_timeout(Duration::from_secs(10));
                    i
                })
                .unwrap()
            })
            .collect();
        assert!(waiting.iter().all(|w| !w.is_finished()));
        for _ in 0..4 {
            go_tx.send(()).unwrap();
        }
        let mut got: Vec<i32> = waiting.into_iter().map(|w| w.join().unwrap()).collect();
        got.sort();
        assert_eq!(got, vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_reservation_starts_its_threads_and_they_take_the_jobs() {
        let kept = reserve(3).unwrap();
        let have = pooled_threads();
        assert!(have >= 3, "{have} threads after reserving 3");
        let (go_tx, go) = mpsc::channel::<()>();
        let go = Arc::new(Mutex::new(go));
        let jobs: Vec<_> = (0..3)
            .map(|_| {
                let go = go.clone();
                spawn_pooled("kept", None, move || {
                    let _ = go.lock().unwrap().recv_timeout(Duration::from_secs(10));
                })
                .unwrap()
            })
            .collect();
        for _ in 0..3 {
            go_tx.send(()).unwrap();
        }
        for j in jobs {
            j.join().unwrap();
        }
        drop(kept);
        assert_eq!(pool().unwrap().state.lock().unwrap().keep, 0);
    }

    #[test]
    fn keeping_netns_gives_back_the_value_and_stays_home_without_an_entry() {
        use std::os::unix::fs::MetadataExt;
        let ino = || std::fs::metadata(THREAD_NS).unwrap().ino();
        let before = ino();
        assert_eq!(keeping_netns(|| 5).unwrap(), 5);
        assert_eq!(ino(), before);
        let caught = std::panic::catch_unwind(|| keeping_netns(|| panic!("inside")));
        assert!(caught.is_err());
        assert_eq!(ino(), before);
    }

    #[test]
    fn the_name_is_cut_to_what_the_kernel_keeps() {
        assert_eq!(
            thread_name("flow-receiver-long-name").as_bytes(),
            b"flow-receiver-l"
        );
        assert_eq!(thread_name("é".repeat(10).as_str()).as_bytes().len(), 14);
    }
}
