-- Payment state shared by every instance (docs/scaling.md#schema). Times are milliseconds since
-- the Unix epoch from the instances' clocks; a row whose expires_at has passed is dead: it is
-- read as absent and deleted by the next sweep.

-- The replay guard: one row per payment key. 'claimed' is a request processing the payment now
-- (expires_at is the claim's lease, so a crashed instance's claim frees itself); 'settled' is a
-- payment that was charged, refused if replayed until expires_at.
create table replay_keys (
  key text primary key,
  state text not null check (state in ('claimed', 'settled')),
  expires_at bigint not null
);
create index replay_keys_expires_at on replay_keys (expires_at);

-- Every settlement from before its broadcast, with the answer computed for it (record), then
-- the 200 as sent (delivered), for the identical retry. json, not jsonb: kept as written.
create table pending_settlements (
  key text primary key,
  record json not null,
  delivered json,
  expires_at bigint not null
);
create index pending_settlements_expires_at on pending_settlements (expires_at);

-- The x402 payment-identifier extension: the 200 answered under an id, with the fingerprint of
-- the payment and resource that bought it.
create table paid_answers (
  id text primary key,
  fingerprint text not null,
  answer json not null,
  expires_at bigint not null
);
create index paid_answers_expires_at on paid_answers (expires_at);
