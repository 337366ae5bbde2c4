//! Keeping the page's tasks short. Everything the page does for one answer of a worker
//! runs in the task that received it unless it is split: Leptos runs the effects of a
//! signal change as microtasks of the same task, so a decode, a table rebuilt and a
//! picture built for one answer add up to one long task (a frozen page for that long).
//! [`next_task`] is the split: what it is given runs in a task of its own, after the
//! browser has had the chance to handle input and to paint.
//!
//! The rule the views follow: decoding an answer, showing it (signals set, tables
//! rebuilt), building a picture and painting it (in slices: `paint::paint_sliced`) are
//! separate tasks, and the requests that follow an answer are sent from one more.

use std::time::Duration;

use leptos::prelude::set_timeout;

/// Run `f` in a new task (a zero-delay timer: input and rendering may come first).
pub fn next_task(f: impl FnOnce() + 'static) {
    set_timeout(f, Duration::ZERO);
}

/// Its children, built one task after it is: a view too big to build in one task on a
/// cold page is built in parts, each part of it wrapped in one `Later` more.
#[leptos::component]
pub fn Later(children: leptos::children::ChildrenFn) -> impl leptos::IntoView {
    use leptos::prelude::*;
    let ready = RwSignal::new(false);
    next_task(move || {
        // Once (a second `set` would build the children anew); the owner may be gone.
        if ready.try_get_untracked() == Some(false) {
            ready.set(true);
        }
    });
    move || ready.get().then(|| children())
}
