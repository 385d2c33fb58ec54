// The notes and queries of `pnpm bench distractors`: the README's Acme note and other memory
// files a user might keep, paraphrase queries that must find them (written here, each with the
// note it must find), and queries that should find nothing. The distractors themselves are real
// short texts read at run time (distractors.mjs), never copied into the repository.

/** Memory files the queries must find, in the shape the memory tool stores them. */
export const NOTES = {
  "/memories/customers/acme.md": "# Acme Corp\n- prefers email follow-ups, not calls",
  "/memories/customers/globex.md":
    "# Globex\n- pays invoices late; send a reminder two weeks before the due date",
  "/memories/customers/initech.md":
    "# Initech\n- contract renewal due in March\n- main contact: Bill Lumbergh",
  "/memories/preferences/coding-style.md":
    "# Coding style\n- TypeScript in strict mode\n- two-space indentation, named exports only",
  "/memories/preferences/writing.md": "# Answers\n- keep them short\n- British spelling, no emojis",
  "/memories/projects/billing-migration.md":
    "# Billing migration\n- invoices move from Stripe to the in-house ledger by the end of Q3\n- owner: Priya",
  "/memories/projects/search.md": "# Search service\n- latency target: p99 under 200 ms",
  "/memories/team/on-call.md":
    "# On-call\n- the rotation changes every Monday at 10:00\n- escalate pages to Marco after 15 minutes",
  "/memories/team/meetings.md": "Weekly sync with the design team: Thursdays at 14:00 CET.",
  "/memories/tools/deploy.md":
    "Deploy to production with `make release`, from main only, once CI is green.",
  "/memories/personal/diet.md": "The user is vegetarian and allergic to peanuts.",
  "/memories/personal/travel.md":
    "Prefers aisle seats and morning flights; avoid layovers in Frankfurt.",
  "/memories/personal/family.md": "Daughter Mia's birthday is on 12 May; she loves dinosaurs.",
  "/memories/personal/running.md":
    "Training for a half marathon in October; the long run is on Sundays.",
  "/memories/home/plants.md": "Water the fiddle-leaf fig every ten days; it dislikes direct sun.",
  "/memories/office/wifi.md":
    "The office Wi-Fi network is Lighthouse; guests use Lighthouse-Guest.",
  "/memories/office/budget.md": "Budget review is quarterly, with finance, in its first week.",
  "/memories/office/cafeteria.md": "The cafeteria serves lunch at noon.",
};

/** Paraphrase queries and the note each must find (many share no word with it). */
export const QUERIES = [
  ["how should I contact that client?", "/memories/customers/acme.md"],
  ["customer communication preference", "/memories/customers/acme.md"],
  ["does Acme want a phone call or a message?", "/memories/customers/acme.md"],
  ["what is the best way to reach that company", "/memories/customers/acme.md"],
  ["which customer is slow to pay?", "/memories/customers/globex.md"],
  ["when should I chase Globex about money owed", "/memories/customers/globex.md"],
  ["when is the Initech deal up for renewal", "/memories/customers/initech.md"],
  ["who is my point of contact at Initech", "/memories/customers/initech.md"],
  ["how far should code be indented", "/memories/preferences/coding-style.md"],
  ["what conventions should my code follow", "/memories/preferences/coding-style.md"],
  ["how should replies be written", "/memories/preferences/writing.md"],
  ["can I use emoji in my responses", "/memories/preferences/writing.md"],
  ["when will we stop using Stripe?", "/memories/projects/billing-migration.md"],
  ["who is moving payments to our own system", "/memories/projects/billing-migration.md"],
  ["how fast must search respond", "/memories/projects/search.md"],
  ["performance goal for the search backend", "/memories/projects/search.md"],
  ["who do I escalate an alert to", "/memories/team/on-call.md"],
  ["when does the pager duty hand over", "/memories/team/on-call.md"],
  ["when do I meet the designers", "/memories/team/meetings.md"],
  ["which day is the recurring design meeting", "/memories/team/meetings.md"],
  ["how do I ship to prod", "/memories/tools/deploy.md"],
  ["steps to publish a new version of the app", "/memories/tools/deploy.md"],
  ["what food can't the user eat", "/memories/personal/diet.md"],
  ["does the user eat meat?", "/memories/personal/diet.md"],
  ["seat preference on planes", "/memories/personal/travel.md"],
  ["which airport should I avoid connecting through", "/memories/personal/travel.md"],
  ["when is my daughter's birthday", "/memories/personal/family.md"],
  ["what present would my kid like", "/memories/personal/family.md"],
  ["what race am I preparing for", "/memories/personal/running.md"],
  ["which day is reserved for the longest jog", "/memories/personal/running.md"],
  ["how often does the houseplant need watering", "/memories/home/plants.md"],
  ["care instructions for the fig tree", "/memories/home/plants.md"],
  ["what is the guest wireless network called", "/memories/office/wifi.md"],
  ["how do visitors get internet access at work", "/memories/office/wifi.md"],
  ["how often do we look at spending with the finance team", "/memories/office/budget.md"],
  ["what time is the midday meal at work", "/memories/office/cafeteria.md"],
];

/** Queries no note answers and no distractor should answer well: their top score is noise. */
export const NONSENSE = [
  "zxqv blorf wuggle",
  "qwerty asdf hjkl",
  "airspeed velocity of an unladen swallow",
  "tallest volcano on Mars",
  "population of Reykjavik in 1850",
  "leg before wicket rule in cricket",
  "how to replace a bicycle chain",
  "lyrics of the national anthem of Bhutan",
  "torque specification for a carburettor bolt",
  "etymology of the word quixotic",
];
