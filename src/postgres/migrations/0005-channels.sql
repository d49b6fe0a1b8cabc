-- Payment channels (x402 batch-settlement on Base) shared by every instance (docs/scaling.md#schema).
-- One row per channel: the server's record as JSON, its revision (a write names the revision it was
-- made from, so two instances serving one channel at once cannot both charge it), and two columns
-- derived from the record for the claimer's queries: what the channel owes us beyond what is claimed
-- on chain, and whether its payer started a timed withdrawal.
create table channels (
  channel_id text primary key,
  record json not null,
  rev bigint not null,
  unclaimed numeric not null,
  withdrawing boolean not null,
  expires_at bigint not null
);
create index channels_owing on channels (channel_id) where unclaimed > 0;
create index channels_expires_at on channels (expires_at);

-- Which instance claims and sweeps now: a lease the holder renews at each look; another instance
-- takes it over once it has run out (its holder stopped or died).
create table channel_claim_lease (
  id integer primary key check (id = 1),
  holder text not null,
  until bigint not null
);
