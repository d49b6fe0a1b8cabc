-- The free preview's daily quota shared by every instance (docs/preview.md, docs/scaling.md#schema).

-- The salt of the client hashes: one row, made by the first instance that opens the quota
-- (insert ... on conflict do nothing, then read), so every instance hashes a client alike.
create table preview_salt (
  id smallint primary key check (id = 1),
  salt text not null check (salt ~ '^[0-9a-f]{64}$')
);

-- One row per client given a preview on a UTC day: 'claimed' while its preview runs (held by
-- `owner` until `lease_until`, ms since the epoch, so a crashed instance's claim frees itself),
-- 'used' once its 200 is recorded. The primary key lets one claim per client and day through.
create table preview_claims (
  day date not null,
  client_hash text not null,
  state text not null check (state in ('claimed', 'used')),
  owner text not null,
  lease_until bigint not null,
  primary key (day, client_hash)
);

-- The day's capacity: the number of rows of preview_claims for the day, moved by the same
-- statement that inserts or deletes one (so capacity is checked under this row's lock).
create table preview_days (
  day date primary key,
  clients integer not null check (clients >= 0)
);
