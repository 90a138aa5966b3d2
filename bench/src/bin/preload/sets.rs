//! The messages of the preload bench, set by set, each with the tool it
//! needs (the order each set was written in is in `main.rs`).

/// Set A: (message, the tool it needs).
pub(crate) const SET_A: [(&str, &str); 30] = [
    ("Can you turn 'good morning' into base64?", "base64_encode"),
    (
        "What does SGVsbG8gd29ybGQ= say once decoded?",
        "base64_decode",
    ),
    (
        "I need an md5 checksum of the string 'password123'.",
        "hash_text",
    ),
    (
        "Generate a fresh unique identifier for my new record.",
        "uuid_new",
    ),
    (
        "Replace every 'colour' with 'color' in this sentence: The colour of the colour wheel.",
        "regex_replace",
    ),
    (
        "Pull out all the email addresses from this text: contact a@b.com or c@d.org",
        "regex_find",
    ),
    (
        "How long is this paragraph in characters? 'Lorem ipsum dolor sit amet'",
        "word_count",
    ),
    ("What's 15% of 240?", "calculate"),
    (
        "Here's a spreadsheet export, make it JSON objects: id;name\n1;Ann",
        "csv_to_json",
    ),
    (
        "Which host and port does http://localhost:3000/api?x=1 point to?",
        "url_parse",
    ),
    (
        "How many hours passed between 2026-06-01T08:00Z and 2026-06-03T20:00Z?",
        "date_diff",
    ),
    ("What date is two weeks after 2026-12-20?", "date_add"),
    (
        "It's 9am in New York, what time is it in London?",
        "timezone_convert",
    ),
    (
        "Compare these two versions of the line and show me what changed: 'hello world' vs 'hello there world'",
        "text_diff",
    ),
    ("Which files in the workspace end in .md?", "glob"),
    ("Show me what's inside the docs folder.", "list_dir"),
    ("Search the source files for the word TODO.", "grep"),
    (
        "How big is report.pdf and when was it last modified?",
        "file_info",
    ),
    ("Rename draft.txt to final.txt.", "file_move"),
    ("Delete the old backup.zip file.", "file_delete"),
    ("Create a folder called archive.", "make_dir"),
    (
        "Forget what I told you about my favourite colour.",
        "memory_delete",
    ),
    (
        "Run the test suite in the background and tell me when it finishes.",
        "job_create",
    ),
    (
        "Remind me every Monday at 9 to send the weekly report.",
        "routine_create",
    ),
    ("What scheduled routines do I have?", "routine_list"),
    ("Store my GitHub token as a secret.", "secrets_set"),
    ("Which skills are installed?", "skill_list"),
    ("Cancel the running backup job.", "job_cancel"),
    ("What is 128 divided by 4?", "calculate"),
    ("Multiply 17 by 23 for me.", "calculate"),
];

/// Set B: (message, the tool it needs).
pub(crate) const SET_B: [(&str, &str); 41] = [
    (
        "Apply this diff to src/main.rs:\n--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1 +1 @@\n-old\n+new",
        "apply_patch",
    ),
    (
        "Install the MCP server for GitHub so you can use its tools.",
        "extension_install",
    ),
    ("Which integrations have I connected?", "extension_list"),
    (
        "Remove the Slack extension, I don't use it anymore.",
        "extension_remove",
    ),
    ("What jobs are running right now?", "job_list"),
    ("Is the build job I started earlier done yet?", "job_status"),
    (
        "Stop reminding me about the standup every morning.",
        "routine_delete",
    ),
    (
        "Delete my old OpenAI API key from the secrets.",
        "secrets_delete",
    ),
    (
        "What's the value of the DATABASE_URL secret?",
        "secrets_get",
    ),
    ("Which credentials have you saved for me?", "secrets_list"),
    ("Save my Stripe key sk_test_123 securely.", "secrets_set"),
    ("Install the pdf-tools skill.", "skill_install"),
    ("Uninstall the translation skill.", "skill_remove"),
    ("Is there a skill that can summarise PDFs?", "skill_search"),
    ("What skills do I have?", "skill_list"),
    ("Give me the SHA-256 of 'hello world'.", "hash_text"),
    ("Add 90 days to 2027-03-03, what date is that?", "date_add"),
    (
        "How many days are there from 2026-12-06 to 2026-12-25?",
        "date_diff",
    ),
    (
        "Convert 14:30 Tokyo time to Berlin time.",
        "timezone_convert",
    ),
    (
        "Count the words in: the rain in Spain stays mainly in the plain",
        "word_count",
    ),
    ("Square root of 1764?", "calculate"),
    ("Turn this CSV into JSON: name,age\nBob,42", "csv_to_json"),
    (
        "What's the query string in https://example.com/search?q=rust&page=2?",
        "url_parse",
    ),
    ("Decode this: aGVsbG8=", "base64_decode"),
    ("Base64 encode 'optimclaw'.", "base64_encode"),
    ("Find every line with 'error' in the logs folder.", "grep"),
    ("List all the .rs files under src recursively.", "glob"),
    ("What's in the workspace directory?", "list_dir"),
    ("Does config.toml exist?", "file_info"),
    ("Move notes.txt into the archive folder.", "file_move"),
    ("Get rid of tmp.log.", "file_delete"),
    ("Make a new directory named build/output.", "make_dir"),
    (
        "Check every 10 minutes whether the site is up.",
        "routine_create",
    ),
    (
        "Kick off a long data export in the background.",
        "job_create",
    ),
    ("Abort job 42.", "job_cancel"),
    ("Show the differences between 'abc' and 'abd'.", "text_diff"),
    ("Extract all the numbers from 'a1 b22 c333'.", "regex_find"),
    ("Swap every digit for # in 'pin 1234'.", "regex_replace"),
    ("I need a new UUID.", "uuid_new"),
    ("Forget my home address.", "memory_delete"),
    ("What routines are scheduled?", "routine_list"),
];

/// Set C: (message, the tool it needs).
pub(crate) const SET_C: [(&str, &str); 40] = [
    ("Could you hash 'abc' with sha512?", "hash_text"),
    ("What's the base64 for 'hi there'?", "base64_encode"),
    (
        "This looks like base64, what does it say: b3B0aW1jbGF3",
        "base64_decode",
    ),
    ("Give me three random GUIDs.", "uuid_new"),
    (
        "In 'cat hat bat', change every 'at' to 'og'.",
        "regex_replace",
    ),
    (
        "Which words in 'Alpha beta Gamma' start with a capital letter?",
        "regex_find",
    ),
    ("How many lines does this have: a\nb\nc", "word_count"),
    ("What's 2 to the power of 10?", "calculate"),
    ("Parse this table into JSON: a,b\n1,2", "csv_to_json"),
    (
        "What's the domain of https://docs.rs/serde/latest?",
        "url_parse",
    ),
    (
        "How long ago was 2020-01-01 from 2026-12-06, in days?",
        "date_diff",
    ),
    ("What's the date 45 days from 2026-12-06?", "date_add"),
    (
        "When it's noon UTC, what time is it in Sydney?",
        "timezone_convert",
    ),
    (
        "What changed between version 'a b c' and 'a c d'?",
        "text_diff",
    ),
    ("Look for Python files anywhere in the project.", "glob"),
    ("List the contents of the src directory.", "list_dir"),
    ("Which files mention 'deprecated'?", "grep"),
    ("When was Cargo.toml last changed?", "file_info"),
    ("Rename the folder old_logs to logs_2025.", "file_move"),
    ("Remove the file scratch.txt.", "file_delete"),
    ("Create the directory tmp/cache.", "make_dir"),
    (
        "Apply this patch to lib.rs: @@ -2 +2 @@\n-a\n+b",
        "apply_patch",
    ),
    (
        "Start a background job that compresses the logs.",
        "job_create",
    ),
    ("How is job 7 doing?", "job_status"),
    ("Kill the job that's stuck.", "job_cancel"),
    ("Show me all background jobs.", "job_list"),
    (
        "Every night at 2am, back up the database.",
        "routine_create",
    ),
    ("Delete the nightly backup routine.", "routine_delete"),
    ("Show my scheduled tasks.", "routine_list"),
    (
        "Keep this password for the staging server: hunter2",
        "secrets_set",
    ),
    ("List my secrets.", "secrets_list"),
    ("Remove the AWS token from my secrets.", "secrets_delete"),
    ("Tell me about the GITHUB_TOKEN secret.", "secrets_get"),
    ("Add a skill from skills/summarize.md.", "skill_install"),
    ("Find a skill for writing release notes.", "skill_search"),
    ("Connect the filesystem MCP server.", "extension_install"),
    ("What MCP servers are configured?", "extension_list"),
    ("Disconnect the weather MCP server.", "extension_remove"),
    ("Erase the memory about my old job.", "memory_delete"),
    ("List the skills you have installed.", "skill_list"),
];

/// Set D: (message, the tool it needs).
pub(crate) const SET_D: [(&str, &str); 40] = [
    ("Compute the SHA-512 digest of 'secret'.", "hash_text"),
    (
        "Encode 'user:pass' in base64 for a basic auth header.",
        "base64_encode",
    ),
    ("What text is hidden in dGVzdA==?", "base64_decode"),
    ("Make me a UUID for the new order.", "uuid_new"),
    (
        "Replace all tabs with spaces in this snippet: 'a\tb'",
        "regex_replace",
    ),
    (
        "Find all hashtags in 'loving #rust and #wasm'.",
        "regex_find",
    ),
    (
        "How many characters is 'supercalifragilistic'?",
        "word_count",
    ),
    ("What's 19.99 * 3 plus tax of 8%?", "calculate"),
    (
        "Convert this semicolon-separated data into JSON: x;y\n3;4",
        "csv_to_json",
    ),
    (
        "Break down this link: https://shop.example.com:8443/cart?item=5",
        "url_parse",
    ),
    (
        "How many weeks are between 2026-01-01 and 2026-12-31?",
        "date_diff",
    ),
    (
        "What's the deadline if I have 30 days starting 2026-12-06?",
        "date_add",
    ),
    (
        "Convert 18:00 Paris time to Los Angeles time.",
        "timezone_convert",
    ),
    (
        "Diff these two config snippets: 'port=80' and 'port=8080'",
        "text_diff",
    ),
    ("Find all the .json files in the repo.", "glob"),
    ("What files are in the tests folder?", "list_dir"),
    ("Search the code for 'unwrap()'.", "grep"),
    ("How large is data.csv?", "file_info"),
    ("Move build.log to logs/build.log.", "file_move"),
    ("Delete old.txt from the workspace.", "file_delete"),
    ("Make a folder named reports.", "make_dir"),
    (
        "Patch README.md with this diff: @@ -1 +1 @@\n-Hi\n+Hello",
        "apply_patch",
    ),
    (
        "Run a job in the background to rebuild the index.",
        "job_create",
    ),
    ("Has job 12 finished?", "job_status"),
    ("Cancel job 9.", "job_cancel"),
    ("Which background jobs have run today?", "job_list"),
    ("Remind me daily at 8 to drink water.", "routine_create"),
    ("Which routines are set up?", "routine_list"),
    ("Stop the weekly report routine.", "routine_delete"),
    ("Store this API key for OpenAI: sk-abc", "secrets_set"),
    ("What secrets do I have?", "secrets_list"),
    ("Revoke the Slack token.", "secrets_delete"),
    ("Look up the secret named NPM_TOKEN.", "secrets_get"),
    (
        "Install a skill from this markdown: ---\nname: greet\n---",
        "skill_install",
    ),
    ("Remove the greet skill.", "skill_remove"),
    ("Add the postgres MCP server.", "extension_install"),
    ("Which MCP servers do I have?", "extension_list"),
    ("Uninstall the postgres MCP server.", "extension_remove"),
    ("Delete the memory with id 3.", "memory_delete"),
    (
        "Which skills could help me write a blog post?",
        "skill_search",
    ),
];

/// Set E: written after set D was measured, before anything else changed,
/// and measured once.
pub(crate) const SET_E: [(&str, &str); 41] = [
    (
        "Apply this unified diff to src/main.rs:\n--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1 +1 @@\n-fn main() {}\n+fn main() { run(); }",
        "apply_patch",
    ),
    (
        "Someone sent me 'aGVsbG8=', what does it decode to?",
        "base64_decode",
    ),
    (
        "Give me the base64 form of my API username 'admin'.",
        "base64_encode",
    ),
    ("What's the square root of 1764?", "calculate"),
    (
        "Turn this CSV into JSON objects: name,age\nann,31\nbob,27",
        "csv_to_json",
    ),
    ("What date is 90 days after 2027-02-14?", "date_add"),
    (
        "How many days from 2026-12-06 until 2027-01-01?",
        "date_diff",
    ),
    (
        "Connect the GitHub MCP server so I can use its tools.",
        "extension_install",
    ),
    (
        "Show me the extensions that are installed.",
        "extension_list",
    ),
    (
        "Disconnect the slack extension, I don't need it anymore.",
        "extension_remove",
    ),
    ("Remove the file tmp/cache.bin.", "file_delete"),
    ("When was notes.md last modified?", "file_info"),
    ("Rename draft.txt to final.txt.", "file_move"),
    ("Which files match **/*.toml?", "glob"),
    ("Where in the project is the string TODO mentioned?", "grep"),
    ("Hash 'hello world' with SHA-256 for me.", "hash_text"),
    (
        "Stop the background job job-42, it's taking too long.",
        "job_cancel",
    ),
    (
        "Start a long-running background task that rebuilds the search index.",
        "job_create",
    ),
    ("What background jobs are running right now?", "job_list"),
    ("Is job 7 finished yet?", "job_status"),
    ("Show me what's inside the docs directory.", "list_dir"),
    ("Create a folder called reports/2026.", "make_dir"),
    (
        "Forget the note you saved about my old address.",
        "memory_delete",
    ),
    (
        "Extract every phone number from this text: call 555-1234 or 555-9876.",
        "regex_find",
    ),
    (
        "Swap all double spaces for single spaces in: 'a  b  c'.",
        "regex_replace",
    ),
    (
        "Every Monday at 9am, remind me to send the weekly report.",
        "routine_create",
    ),
    (
        "Cancel my daily standup reminder routine.",
        "routine_delete",
    ),
    ("Which routines have I set up?", "routine_list"),
    ("Delete the OPENAI_KEY secret.", "secrets_delete"),
    (
        "Read the value of the secret named DB_PASSWORD.",
        "secrets_get",
    ),
    ("List the names of all stored secrets.", "secrets_list"),
    (
        "Store my Stripe key sk_test_123 as a secret called STRIPE_KEY.",
        "secrets_set",
    ),
    ("Install the pdf-summary skill.", "skill_install"),
    ("What skills are installed?", "skill_list"),
    ("Uninstall the translate skill.", "skill_remove"),
    ("Is there a skill for making slide decks?", "skill_search"),
    (
        "What changed between 'the quick fox' and 'the quick brown fox'?",
        "text_diff",
    ),
    (
        "It's 9am in Tokyo, what time is that in London?",
        "timezone_convert",
    ),
    (
        "What's the host and query string of https://api.example.org/v2/items?page=3&sort=asc?",
        "url_parse",
    ),
    ("I need a random v4 UUID.", "uuid_new"),
    (
        "Count the words in this paragraph: The rain in Spain stays mainly in the plain.",
        "word_count",
    ),
];

/// Set F: short requests as a test script states a task, written after
/// set E's changes, before anything else, and measured once.
pub(crate) const SET_F: [(&str, &str); 30] = [
    ("Base64-encode the string 'optimclaw'.", "base64_encode"),
    ("Decode the base64 string 'Zm9vYmFy'.", "base64_decode"),
    ("Compute the MD5 hash of 'abc'.", "hash_text"),
    ("Generate two UUIDs.", "uuid_new"),
    ("Calculate (17 + 25) * 3.", "calculate"),
    ("What is 15% of 80?", "calculate"),
    ("Count the lines in 'a\nb\nc'.", "word_count"),
    ("Convert the CSV 'id,name\n1,Ann' to JSON.", "csv_to_json"),
    (
        "Parse the URL https://example.org/search?q=rust&page=2.",
        "url_parse",
    ),
    (
        "How many hours are between 2026-01-01T00:00:00Z and 2026-01-02T06:00:00Z?",
        "date_diff",
    ),
    ("Add 2 weeks to 2026-03-10.", "date_add"),
    (
        "Convert 2026-07-04T15:00:00Z to America/New_York time.",
        "timezone_convert",
    ),
    (
        "Show a unified diff of 'alpha beta' against 'alpha gamma'.",
        "text_diff",
    ),
    (
        "Use a regex to find all words starting with 'b' in 'big blue box'.",
        "regex_find",
    ),
    (
        "Use a regex to replace digits with '#' in 'a1b2'.",
        "regex_replace",
    ),
    ("List the files in the workspace root.", "list_dir"),
    ("Find all *.md files in the workspace.", "glob"),
    ("Search all files for the word 'panic'.", "grep"),
    ("Get the size of README.md.", "file_info"),
    ("Move notes.txt into the archive folder.", "file_move"),
    ("Delete the file scratch.txt.", "file_delete"),
    ("Create the directory out/reports.", "make_dir"),
    (
        "Apply this patch to lib.rs:\n--- a/lib.rs\n+++ b/lib.rs\n@@ -1 +1 @@\n-old\n+new",
        "apply_patch",
    ),
    ("Start a background job that runs the tests.", "job_create"),
    ("List all background jobs.", "job_list"),
    ("Cancel job job-1234.", "job_cancel"),
    (
        "Schedule a routine that runs every day at 7am to fetch the news.",
        "routine_create",
    ),
    ("List my routines.", "routine_list"),
    (
        "Save the secret API_TOKEN with value abc123.",
        "secrets_set",
    ),
    ("List the installed skills.", "skill_list"),
];
