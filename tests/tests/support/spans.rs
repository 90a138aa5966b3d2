//! A test subscriber that keeps every span (name and fields, as recorded
//! at creation and later) and every event, for tests to assert on.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::prelude::*;
use tracing_subscriber::registry::LookupSpan;

/// One span or event as captured.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    pub name: String,
    /// The name of the span's parent (spans only).
    pub parent: Option<String>,
    pub fields: BTreeMap<String, String>,
}

impl Captured {
    pub fn get(&self, field: &str) -> Option<&str> {
        self.fields.get(field).map(String::as_str)
    }
}

#[derive(Clone, Default)]
pub struct Spans {
    spans: Arc<Mutex<BTreeMap<u64, Captured>>>,
    events: Arc<Mutex<Vec<Captured>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut captured = Captured {
            name: attrs.metadata().name().to_owned(),
            parent: ctx
                .span(id)
                .and_then(|s| s.parent())
                .map(|p| p.name().to_owned()),
            ..Captured::default()
        };
        attrs.record(&mut Fields(&mut captured.fields));
        self.spans.lock().unwrap().insert(id.into_u64(), captured);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if let Some(captured) = self.spans.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut captured.fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut captured = Captured {
            name: event.metadata().target().to_owned(),
            ..Captured::default()
        };
        event.record(&mut Fields(&mut captured.fields));
        self.events.lock().unwrap().push(captured);
    }
}

impl Spans {
    /// Captures what happens on this thread until the guard is dropped.
    pub fn install() -> (Spans, tracing::subscriber::DefaultGuard) {
        let spans = Spans::default();
        let subscriber = tracing_subscriber::registry().with(spans.clone());
        let guard = tracing::subscriber::set_default(subscriber);
        (spans, guard)
    }

    /// Captures what happens on every thread of the process, from the first
    /// call on (one subscriber per process, installed once). For test
    /// binaries whose other tests run at once: a thread's own subscriber
    /// can miss spans whose call sites other threads cached as unwanted;
    /// the process-wide one sees them all, so a test picks its own by a
    /// field only it uses.
    pub fn global() -> Spans {
        static GLOBAL: std::sync::OnceLock<Spans> = std::sync::OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let spans = Spans::default();
                tracing::subscriber::set_global_default(
                    tracing_subscriber::registry().with(spans.clone()),
                )
                .expect("no other global subscriber in this test binary");
                spans
            })
            .clone()
    }

    /// Every span named `name` whose `field` is `value`, in creation order.
    pub fn named_with(&self, name: &str, field: &str, value: &str) -> Vec<Captured> {
        self.named(name)
            .into_iter()
            .filter(|s| s.get(field) == Some(value))
            .collect()
    }

    /// Every span named `name`, in creation order.
    pub fn named(&self, name: &str) -> Vec<Captured> {
        self.spans
            .lock()
            .unwrap()
            .values()
            .filter(|s| s.name == name)
            .cloned()
            .collect()
    }

    /// Every event of `target`.
    pub fn events(&self, target: &str) -> Vec<Captured> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.name == target)
            .cloned()
            .collect()
    }
}
