//! What generated code needs. Not public API: names here change freely.

use std::cell::Cell;
use std::fmt::Display;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ToolError;
pub use crate::schema::{json_type_name, schema_for};
pub use ::{inventory, schemars, serde, serde_json};

#[cfg(feature = "linkme")]
pub use ::linkme;

#[cfg(feature = "linkme")]
pub use crate::descriptor::TOOLS;

#[cfg(not(feature = "linkme"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __optimclaw_register_tool {
    ($desc:expr) => {
        $crate::__private::inventory::submit! { $desc }
    };
}

#[cfg(feature = "linkme")]
#[doc(hidden)]
#[macro_export]
macro_rules! __optimclaw_register_tool {
    ($desc:expr) => {
        // `linkme` places the descriptor with `#[link_section]`.
        #[allow(unsafe_code)]
        #[$crate::__private::linkme::distributed_slice($crate::__private::TOOLS)]
        #[linkme(crate = $crate::__private::linkme)]
        static __OPTIMCLAW_TOOL: $crate::ToolDescriptor = $desc;
    };
}

pub use crate::__optimclaw_register_tool as register_tool;

/// Decodes the JSON arguments into the generated argument struct. The tool
/// name is filled in by the registry.
pub fn decode_args<T: DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    let args = match args {
        // Some models send `null` for a tool without parameters.
        Value::Null => Value::Object(serde_json::Map::new()),
        Value::Object(_) => args,
        other => {
            let detail = format!(
                "expected a JSON object of named arguments, got {}",
                json_type_name(&other)
            );
            return Err(ToolError::decoding(String::new(), detail, other));
        }
    };
    // The fast path reads the arguments without tracking the JSON path
    // (tracking doubles the cost of decoding); only a failure is decoded
    // again with `serde_path_to_error`, to say where the mistake is.
    match T::deserialize(&args) {
        Ok(decoded) => Ok(decoded),
        Err(plain) => Err(match serde_path_to_error::deserialize::<_, T>(&args) {
            Err(err) => {
                let path = err.path().to_string();
                ToolError::decoding(path, err.into_inner(), args)
            }
            Ok(_) => ToolError::decoding(String::new(), plain, args),
        }),
    }
}

/// Encodes a tool's result as JSON.
pub fn finish<T: Serialize>(result: Result<T, ToolError>) -> Result<Value, ToolError> {
    let value = result?;
    serde_json::to_value(&value).map_err(|e| {
        ToolError::new(format!(
            "the tool's result could not be encoded as JSON: {e}"
        ))
    })
}

/// Holds a result for [`RichOutput`] / [`RichPlain`], with the call's
/// context.
pub struct Rich<'c, T> {
    result: Cell<Option<Result<T, ToolError>>>,
    ctx: &'c crate::ToolContext,
}

impl<'c, T> Rich<'c, T> {
    /// Wraps a result.
    pub fn new(result: Result<T, ToolError>, ctx: &'c crate::ToolContext) -> Self {
        Rich {
            result: Cell::new(Some(result)),
            ctx,
        }
    }
    fn take(&self) -> Result<T, ToolError> {
        self.result.take().expect("a result is finished once")
    }
}

/// A [`ToolOutput`](crate::ToolOutput) goes to the caller's output slot;
/// its JSON value goes on.
pub trait RichOutput {
    /// Delivers the output.
    fn __optimclaw_rich(&self) -> Result<Value, ToolError>;
}

impl RichOutput for &Rich<'_, crate::ToolOutput> {
    fn __optimclaw_rich(&self) -> Result<Value, ToolError> {
        self.take().map(|output| output.deliver(self.ctx))
    }
}

/// Any other value goes on as it is.
pub trait RichPlain {
    /// The value type.
    type Ok;
    /// Passes the result on.
    fn __optimclaw_rich(&self) -> Result<Self::Ok, ToolError>;
}

impl<T> RichPlain for Rich<'_, T> {
    type Ok = T;
    fn __optimclaw_rich(&self) -> Result<T, ToolError> {
        self.take()
    }
}

// Return values: `Result<T, E>` is split into its arms; any other `T` is
// `Ok(T)`. Chosen by method resolution on the concrete return type
// ("autoref specialisation"), so type aliases of `Result` work too.

/// Holds a return value for [`SplitResult`] / [`SplitPlain`].
pub struct Split<T>(Cell<Option<T>>);

impl<T> Split<T> {
    /// Wraps a value.
    pub fn new(value: T) -> Self {
        Split(Cell::new(Some(value)))
    }
    fn take(&self) -> T {
        self.0.take().expect("a return value is split once")
    }
}

/// `Result<T, E>` return values.
pub trait SplitResult {
    /// The success type.
    type Ok;
    /// The error type.
    type Err;
    /// Splits the value.
    fn __optimclaw_split(&self) -> Result<Self::Ok, Self::Err>;
}

impl<T, E> SplitResult for &Split<Result<T, E>> {
    type Ok = T;
    type Err = E;
    fn __optimclaw_split(&self) -> Result<T, E> {
        self.take()
    }
}

/// Any other return value.
pub trait SplitPlain {
    /// The value type.
    type Ok;
    /// Splits the value.
    fn __optimclaw_split(&self) -> Result<Self::Ok, std::convert::Infallible>;
}

impl<T> SplitPlain for Split<T> {
    type Ok = T;
    fn __optimclaw_split(&self) -> Result<T, std::convert::Infallible> {
        Ok(self.take())
    }
}

/// Holds an error value for [`ErrorViaInto`] / [`ErrorViaDisplay`].
pub struct ErrorWrap<E>(Cell<Option<E>>);

impl<E> ErrorWrap<E> {
    /// Wraps an error.
    pub fn new(err: E) -> Self {
        ErrorWrap(Cell::new(Some(err)))
    }
    fn take(&self) -> E {
        self.0.take().expect("an error is converted once")
    }
}

/// Errors that convert into [`ToolError`] keep their kind and data.
pub trait ErrorViaInto {
    /// Converts.
    fn __optimclaw_error(&self) -> ToolError;
}

impl<E: Into<ToolError>> ErrorViaInto for &&&ErrorWrap<E> {
    fn __optimclaw_error(&self) -> ToolError {
        self.take().into()
    }
}

/// Other `std::error::Error`s are reported through `Display` and kept as
/// the [`ToolError`]'s source.
pub trait ErrorViaError {
    /// Converts.
    fn __optimclaw_error(&self) -> ToolError;
}

impl<E: std::error::Error + Send + Sync + 'static> ErrorViaError for &&ErrorWrap<E> {
    fn __optimclaw_error(&self) -> ToolError {
        ToolError::from_error(self.take())
    }
}

/// Other errors are reported through `Display`.
pub trait ErrorViaDisplay {
    /// Converts.
    fn __optimclaw_error(&self) -> ToolError;
}

impl<E: Display> ErrorViaDisplay for &ErrorWrap<E> {
    fn __optimclaw_error(&self) -> ToolError {
        ToolError::new(self.take())
    }
}

/// A `&T` parameter's value: the dispatching registry's state (checked
/// when it was built), else the call's context.
pub fn state<'c, T: Send + Sync + 'static>(
    ctx: &'c crate::ToolContext,
    tool: &str,
) -> Result<&'c T, ToolError> {
    crate::registry::dispatched_state::<T>(ctx)
        .or_else(|| ctx.get::<T>())
        .ok_or_else(|| {
            ToolError::new(format!(
                "tool `{tool}` needs a `{}`, which neither its registry nor the call's context holds",
                std::any::type_name::<T>()
            ))
        })
}

/// What no error type implements: reached only by a type that is neither
/// `Into<ToolError>`, a `std::error::Error` nor `Display`, for the message
/// below on the user's error type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error type: the model reads an error's text, and `{Self}` has none",
    label = "this error type is neither `Display` nor convertible into `optimclaw::ToolError`",
    note = "implement `std::fmt::Display` for `{Self}` (or derive `thiserror::Error`), or `From<{Self}> for optimclaw::ToolError`, or return `optimclaw::ToolError`"
)]
pub trait ToolErrorType {}

/// The last tier: any other type, refused with [`ToolErrorType`]'s message.
pub trait ErrorViaNothing<E> {
    /// Never callable: no type implements [`ToolErrorType`].
    fn __optimclaw_error(&self) -> ToolError
    where
        E: ToolErrorType;
}

impl<E> ErrorViaNothing<E> for ErrorWrap<E> {
    fn __optimclaw_error(&self) -> ToolError
    where
        E: ToolErrorType,
    {
        ToolError::new("an error type without text")
    }
}

/// A parameter's type: decoded from the arguments and described in the
/// schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it must implement `serde::Deserialize` and `schemars::JsonSchema`",
    label = "this parameter's type",
    note = "derive both on it: `#[derive(serde::Deserialize, schemars::JsonSchema)]`, with schemars 1.x (`schemars = \"1\"` in Cargo.toml; schemars 0.8's `JsonSchema` is another trait)"
)]
pub trait ToolParameter {}

impl<T: DeserializeOwned + schemars::JsonSchema> ToolParameter for T {}

/// Checks a parameter's type (never called).
pub fn assert_parameter<T: ToolParameter>() {}

/// A type `#[arg(default)]` can fill in.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `Default`, which `#[arg(default)]` needs",
    label = "this `default` calls `{Self}::default()`",
    note = "derive or implement `Default` for `{Self}`, or give the value: `#[arg(default = EXPR)]`"
)]
pub trait ArgDefault: Sized {
    /// The default value.
    fn arg_default() -> Self;
}

impl<T: Default> ArgDefault for T {
    fn arg_default() -> Self {
        T::default()
    }
}

/// Type-level probe for the output schema of a return type.
pub struct OutputProbe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> OutputProbe<T> {
    /// Creates the probe.
    pub fn new() -> Self {
        OutputProbe(PhantomData)
    }
}

impl<T: ?Sized> Default for OutputProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `Result<T, E>` with `T: JsonSchema`: the schema of `T`.
pub trait OutputResult {
    /// The output schema.
    fn __optimclaw_output_schema(&self) -> Option<Value>;
}

impl<T: schemars::JsonSchema, E> OutputResult for &&OutputProbe<Result<T, E>> {
    fn __optimclaw_output_schema(&self) -> Option<Value> {
        Some(schema_for::<T>())
    }
}

/// `T: JsonSchema`: its schema.
pub trait OutputPlain {
    /// The output schema.
    fn __optimclaw_output_schema(&self) -> Option<Value>;
}

impl<T: schemars::JsonSchema + ?Sized> OutputPlain for &OutputProbe<T> {
    fn __optimclaw_output_schema(&self) -> Option<Value> {
        Some(schema_for::<T>())
    }
}

/// Anything else: no output schema.
pub trait OutputNone {
    /// The output schema.
    fn __optimclaw_output_schema(&self) -> Option<Value>;
}

impl<T: ?Sized> OutputNone for OutputProbe<T> {
    fn __optimclaw_output_schema(&self) -> Option<Value> {
        None
    }
}
