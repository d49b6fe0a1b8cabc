-- The operator kill switch, one row shared by every instance (docs/scaling.md#schema).
-- Transitions lock the row (select ... for update), append their audit entry, then update it and
-- NOTIFY kill_switch so the other instances pick the state up at once.
create table kill_switch (
  id smallint primary key check (id = 1),
  active boolean not null,
  since text,
  reason text,
  ledger_index bigint
);
insert into kill_switch (id, active) values (1, false);
