use super::*;

fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    split_words(text, |w| out.push(w.to_owned()));
    out
}

#[test]
fn splits_names_of_every_style() {
    assert_eq!(words("job_create"), ["job", "create"]);
    assert_eq!(words("jobCreate"), ["job", "create"]);
    assert_eq!(words("job-create"), ["job", "create"]);
    assert_eq!(words("getHTTPResponse"), ["get", "http", "response"]);
    assert_eq!(words("github__list_PRs"), ["github", "list", "prs"]);
    assert_eq!(words("userIDs"), ["user", "ids"]);
    assert_eq!(words("sha256 base64"), ["sha256", "base64"]);
}

#[test]
fn analysis_stems_and_drops_stop_words() {
    let mut out = Vec::new();
    analyze("Creating the jobs of 12 users", &mut out);
    assert_eq!(out, ["creat", "job", "user"]);
    out.clear();
    analyze("How many weeks, how much money?", &mut out);
    assert_eq!(out, ["week", "money"]);
}

#[test]
fn range_words_are_searched() {
    let mut out = Vec::new();
    analyze("days between now and until Friday, after lunch", &mut out);
    assert_eq!(out, ["day", "between", "until", "friday", "lunch"]);
}

#[test]
fn a_sign_beside_a_number_is_read_as_its_word() {
    assert_eq!(
        words("what's 17% of 2,340"),
        ["what", "s", "17", "percent", "of", "2", "340"]
    );
    assert_eq!(words("20 % off"), ["20", "percent", "off"]);
    assert_eq!(
        words("a 10 % de propina"),
        ["a", "10", "percent", "de", "propina"]
    );
    assert_eq!(
        words("heat it to 180°C"),
        ["heat", "it", "to", "180", "degree", "c"]
    );
}

#[test]
fn an_operator_between_numbers_is_read_as_its_word() {
    assert_eq!(words("6*7"), ["6", "multiply", "7"]);
    assert_eq!(words("6 × 7"), ["6", "multiply", "7"]);
    assert_eq!(words("what is 3 + 4"), ["what", "is", "3", "plus", "4"]);
    assert_eq!(
        words("at 12:30 add 2+3"),
        ["at", "12", "30", "add", "2", "plus", "3"]
    );
    assert_eq!(words("84 ÷ 2"), ["84", "divide", "2"]);
    assert_eq!(
        words("What is 6 times 7?"),
        ["what", "is", "6", "times", "multiply", "7"]
    );
    assert_eq!(words("12 times 12"), ["12", "times", "multiply", "12"]);
}

#[test]
fn an_operator_beside_one_number_or_none_is_punctuation() {
    assert_eq!(words("C++ 17"), ["c", "17"]);
    assert_eq!(words("08:00+09:00"), ["08", "00", "09", "00"]);
    assert_eq!(words("+1 555 0100"), ["1", "555", "0100"]);
    assert_eq!(words("*.rs 2 * x"), ["rs", "2", "x"]);
    assert_eq!(
        words("2026-12-05 and 12/05"),
        ["2026", "12", "05", "and", "12", "05"]
    );
    assert_eq!(words("3 times a day"), ["3", "times", "a", "day"]);
    assert_eq!(words("times 7, 3 times"), ["times", "7", "3", "times"]);
    assert_eq!(
        words("what times are free"),
        ["what", "times", "are", "free"]
    );
}

#[test]
fn a_hyphenated_variant_is_also_one_word() {
    assert_eq!(words("SHA-256 hash"), ["sha", "256", "sha256", "hash"]);
    assert_eq!(
        words("utf-8 – ünïcode-16"),
        ["utf", "8", "utf8", "ünïcode", "16", "ünïcode16"]
    );
    // Numbers, a number first, or no digit right after the hyphen: no join.
    assert_eq!(words("2026-12-06"), ["2026", "12", "06"]);
    assert_eq!(words("x86-64"), ["x86", "64"]);
    assert_eq!(words("date-time sha- 256"), ["date", "time", "sha", "256"]);
}

#[test]
fn an_iso_date_time_is_numbers_only() {
    assert_eq!(
        words("at 2026-06-01T08:00Z"),
        ["at", "2026", "06", "01", "08", "00"]
    );
    assert_eq!(
        words("2026-06-01T08:00:00+09:00 — über"),
        ["2026", "06", "01", "08", "00", "00", "09", "00", "über"]
    );
    // A T or Z that is no date-time's stays a letter.
    assert_eq!(
        words("H2T 4Zone 3Z9 Z80"),
        ["h2", "t", "4", "zone", "3", "z9", "z80"]
    );
}

#[test]
fn a_sign_away_from_numbers_is_punctuation() {
    assert_eq!(words("printf %d of %PATH%"), ["printf", "d", "of", "path"]);
    assert_eq!(words("$50 costs €5"), ["50", "costs", "5"]);
    assert_eq!(words("%"), Vec::<String>::new());
}
