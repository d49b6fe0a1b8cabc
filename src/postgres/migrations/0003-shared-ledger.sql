-- The ledger shared by every instance (docs/scaling.md#schema): one hash chain and one Merkle
-- tree, sequenced by the database. An appending transaction locks the head row
-- (select ... for update), seals its batch against it, inserts the entries and moves the head,
-- then NOTIFY ledger; the row lock orders instances, so the chain has no gap and no fork.

-- One row per entry: its index and its canonical JSON line exactly as hashed (the entry's
-- entrySha256 is inside it; readers re-verify the chain from these lines).
create table ledger_entries (
  idx bigint primary key check (idx >= 0),
  line text not null
);

-- The head every append chains from: the number of entries and the last entry's hash.
create table ledger_head (
  id smallint primary key check (id = 1),
  size bigint not null,
  chain_head text not null
);
insert into ledger_head (id, size, chain_head) values (1, 0, repeat('0', 64));

-- The payment-identifier claim: a row without an answer is an id whose payment is being
-- processed now (expires_at is the claim's lease), so one id buys at most one charge across
-- instances; the answer fills it once the 200 is ready.
alter table paid_answers alter column answer drop not null;

