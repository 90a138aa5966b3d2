//! Dates and times: the core `time` tool, and the reading of a date or
//! date-time the date tools share.

use optimclaw::{ToolError, tool};
use schemars::JsonSchema;
use serde::Serialize;

/// A date and time in one zone.
#[derive(Debug, Serialize, JsonSchema)]
struct Moment {
    /// Date, time, offset and zone (RFC 9557), e.g. 2026-12-02T09:30:00+01:00[Europe/Paris].
    datetime: String,
    /// The IANA time zone.
    timezone: String,
    /// Offset from UTC, e.g. +01:00.
    utc_offset: String,
    /// Day of the week.
    weekday: String,
    /// Seconds since 1970-01-01T00:00:00Z.
    unix_seconds: i64,
}

/// Get the current date and time, or a given date-time, in UTC or in a
/// given IANA time zone.
#[tool(core, read_only)]
fn time(
    /// An IANA time zone such as "Europe/Paris" or "America/New_York"; UTC when omitted.
    timezone: Option<String>,
    /// A date-time to show in that zone (ISO 8601, UTC unless it carries an
    /// offset); the current time when omitted.
    datetime: Option<String>,
) -> Result<Moment, ToolError> {
    let name = timezone.as_deref().map_or("UTC", str::trim);
    let tz = jiff::tz::TimeZone::get(name).map_err(|_| {
        ToolError::new(format!(
            "unknown time zone {name:?}; use an IANA name such as \"Europe/Paris\" or \"UTC\""
        ))
    })?;
    // A model often sends an empty string for "not given".
    let at = match datetime.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        Some(text) => parse_datetime(text)?.timestamp(),
        None => jiff::Timestamp::now(),
    };
    let moment = at.to_zoned(tz);
    Ok(Moment {
        datetime: moment.to_string(),
        timezone: name.to_owned(),
        utc_offset: moment.offset().to_string(),
        weekday: format!("{:?}", moment.weekday()),
        unix_seconds: moment.timestamp().as_second(),
    })
}

/// A date or date-time in ISO 8601 (UTC unless it carries an offset or zone).
pub(crate) fn parse_datetime(text: &str) -> Result<jiff::Zoned, ToolError> {
    let t = text.trim();
    if let Ok(z) = t.parse::<jiff::Zoned>() {
        return Ok(z);
    }
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Ok(ts.to_zoned(jiff::tz::TimeZone::UTC));
    }
    if let Ok(dt) = t.parse::<jiff::civil::DateTime>() {
        return dt
            .to_zoned(jiff::tz::TimeZone::UTC)
            .map_err(|e| ToolError::new(e.to_string()));
    }
    if let Ok(d) = t.parse::<jiff::civil::Date>() {
        return d
            .to_zoned(jiff::tz::TimeZone::UTC)
            .map_err(|e| ToolError::new(e.to_string()));
    }
    Err(ToolError::new(format!(
        "cannot read {t:?} as a date; use ISO 8601 such as 2026-12-02 or 2026-12-02T09:30:00Z"
    )))
}
