-- Sample shop data for the agent's tools (lookup_order, get_user_profile).
--
-- Northwind Home is the fictional home-appliance shop of the help center in
-- knowledge/help-center: one warehouse in Kassel, Germany; DHL, PostNord and DPD
-- chosen by destination, as shipping.md says. The tables stand in for the shop's
-- order system, so the tools read something real and tool turns exist.
--
-- Several orders carry long tracking histories (13 to 19 scans, each with a
-- sentence of detail): one lookup then returns the 1,000–2,500 tokens of JSON a
-- real carrier integration returns, most of which the agent digests into one
-- sentence. That is the tool-output bloat the memory strategies must remove.
--
-- user_id is the shop's customer id (here the e-mail address); an order without
-- one was placed by guest checkout. Everything is literal, so every database
-- gets the same rows and tests can name them.
create table customer_profiles (
  user_id text primary key,
  name text not null,
  email text not null,
  phone text,
  city text,
  loyalty_tier text not null check (loyalty_tier in ('Bronze', 'Silver', 'Gold')),
  member_since date not null,
  -- [{order_id, date, product, total, returned}], newest first; older entries
  -- come from orders archived out of the orders table.
  purchase_history jsonb not null default '[]'::jsonb,
  created_at timestamptz not null default now()
);

create table orders (
  order_id text primary key check (order_id ~ '^ZX-[0-9]{5}$'),
  -- null: guest checkout (the order number is the only credential).
  user_id text references customer_profiles (user_id),
  status text not null
    check (status in ('processing', 'shipped', 'in_transit', 'held_at_depot', 'delivered', 'cancelled')),
  -- Both null until the order leaves the warehouse.
  carrier text,
  ship_date date,
  destination_city text not null,
  -- [{sku, name, qty, unit_price}], prices in EUR.
  items jsonb not null,
  -- [{ts, location, status, detail}], oldest first, as the carrier reports them.
  tracking_events jsonb not null default '[]'::jsonb,
  -- When the order was placed.
  created_at timestamptz not null default now()
);

create index orders_user_id_idx on orders (user_id);

alter table customer_profiles enable row level security;
alter table orders enable row level security;

insert into customer_profiles (user_id, name, email, phone, city, loyalty_tier, member_since, purchase_history) values
  ('lukas@example.com', 'Lukas Brandt', 'lukas@example.com', '+353 87 555 0142', 'Cork', 'Silver', '2021-03-14', '[
    {"order_id": "ZX-14440", "date": "2026-04-10", "product": "Vesper air fryer 5.5 L and liners", "total": 148.80, "returned": false},
    {"order_id": "ZX-59197", "date": "2026-02-02", "product": "Quill coffee grinder and Zorblax kettle 1.7 L", "total": 98.90, "returned": false},
    {"order_id": "ZX-08213", "date": "2025-11-28", "product": "Aerith blender 1.5 L", "total": 89.00, "returned": true},
    {"order_id": "ZX-05527", "date": "2024-12-09", "product": "Orla stand mixer", "total": 279.00, "returned": false},
    {"order_id": "ZX-02291", "date": "2023-06-17", "product": "Zorblax kettle 1.7 L", "total": 39.90, "returned": false},
    {"order_id": "ZX-00874", "date": "2021-03-14", "product": "Nimbus toaster", "total": 49.90, "returned": false}
  ]'),
  ('tomasz.nowak@example.com', 'Tomasz Nowak', 'tomasz.nowak@example.com', '+47 555 01 734', 'Bergen', 'Gold', '2019-11-02', '[
    {"order_id": "ZX-50802", "date": "2026-08-11", "product": "Vesper air fryer 5.5 L (gift)", "total": 129.00, "returned": false},
    {"order_id": "ZX-17496", "date": "2026-07-25", "product": "Orla stand mixer and 3 more items", "total": 486.90, "returned": false},
    {"order_id": "ZX-07745", "date": "2025-10-03", "product": "Quill coffee grinder", "total": 59.00, "returned": false},
    {"order_id": "ZX-04102", "date": "2024-05-21", "product": "Lumen kettle", "total": 54.90, "returned": false},
    {"order_id": "ZX-01630", "date": "2022-12-12", "product": "Aerith blender 1.5 L", "total": 89.00, "returned": false}
  ]'),
  ('ingrid.holm@example.com', 'Ingrid Holm', 'ingrid.holm@example.com', '+356 7955 0198', 'Valletta', 'Bronze', '2024-06-20', '[
    {"order_id": "ZX-95682", "date": "2026-11-21", "product": "Aerith blender 1.5 L", "total": 89.00, "returned": false},
    {"order_id": "ZX-31586", "date": "2026-06-15", "product": "Lumen kettle and Nimbus toaster", "total": 104.80, "returned": false},
    {"order_id": "ZX-04377", "date": "2024-06-20", "product": "Nimbus toaster", "total": 49.90, "returned": true}
  ]'),
  ('priya.raman@example.com', 'Priya Raman', 'priya.raman@example.com', '+44 20 7946 0321', 'London', 'Gold', '2020-02-09', '[
    {"order_id": "ZX-34422", "date": "2026-10-05", "product": "Lumen kettle (express)", "total": 54.90, "returned": false},
    {"order_id": "ZX-19608", "date": "2026-09-10", "product": "Orla stand mixer and 2 more items", "total": 345.90, "returned": false},
    {"order_id": "ZX-06981", "date": "2025-03-30", "product": "Vesper air fryer 5.5 L", "total": 129.00, "returned": false},
    {"order_id": "ZX-03310", "date": "2023-11-24", "product": "Quill coffee grinder", "total": 59.00, "returned": false},
    {"order_id": "ZX-01208", "date": "2021-07-02", "product": "Zorblax kettle 1.7 L", "total": 39.90, "returned": true},
    {"order_id": "ZX-00412", "date": "2020-02-09", "product": "Nimbus toaster", "total": 49.90, "returned": false}
  ]'),
  ('mateo.ruiz@example.com', 'Mateo Ruiz', 'mateo.ruiz@example.com', '+48 555 010 447', 'Gdańsk', 'Silver', '2022-08-30', '[
    {"order_id": "ZX-53168", "date": "2026-09-14", "product": "Orla pasta roller attachment (cancelled)", "total": 69.00, "returned": false},
    {"order_id": "ZX-20918", "date": "2026-08-27", "product": "Vesper air fryer 5.5 L and liners", "total": 138.90, "returned": false},
    {"order_id": "ZX-02954", "date": "2022-08-30", "product": "Lumen kettle", "total": 54.90, "returned": false}
  ]'),
  ('amara.okafor@example.com', 'Amara Okafor', 'amara.okafor@example.com', '+46 70 555 0163', 'Malmö', 'Bronze', '2025-01-12', '[
    {"order_id": "ZX-45643", "date": "2026-11-20", "product": "Nimbus toaster and descaling tablets", "total": 57.80, "returned": false},
    {"order_id": "ZX-06033", "date": "2025-01-12", "product": "Zorblax kettle 1.7 L", "total": 39.90, "returned": false}
  ]');

insert into orders (order_id, user_id, status, carrier, ship_date, destination_city, items, created_at) values
  ('ZX-14440', 'lukas@example.com', 'held_at_depot', 'DPD', '2026-04-13', 'Cork', '[
    {"sku": "NW-AF-200", "name": "Vesper air fryer 5.5 L", "qty": 1, "unit_price": 129.00},
    {"sku": "NW-AF-021", "name": "Air fryer paper liners, 50 pack", "qty": 2, "unit_price": 9.90}
  ]', '2026-04-10 19:42:00+00'),
  ('ZX-59197', 'lukas@example.com', 'delivered', 'DPD', '2026-02-02', 'Cork', '[
    {"sku": "NW-CG-120", "name": "Quill coffee grinder", "qty": 1, "unit_price": 59.00},
    {"sku": "NW-KT-150", "name": "Zorblax kettle 1.7 L", "qty": 1, "unit_price": 39.90}
  ]', '2026-02-02 10:05:00+00'),
  ('ZX-17496', 'tomasz.nowak@example.com', 'in_transit', 'PostNord', '2026-07-27', 'Bergen', '[
    {"sku": "NW-SM-500", "name": "Orla stand mixer", "qty": 1, "unit_price": 279.00},
    {"sku": "NW-SM-040", "name": "Orla pasta roller attachment", "qty": 1, "unit_price": 69.00},
    {"sku": "NW-BL-310", "name": "Aerith blender 1.5 L", "qty": 1, "unit_price": 89.00},
    {"sku": "NW-TS-110", "name": "Nimbus toaster", "qty": 1, "unit_price": 49.90}
  ]', '2026-07-25 08:30:00+00'),
  ('ZX-50802', 'tomasz.nowak@example.com', 'delivered', 'DHL', '2026-08-12', 'Graz', '[
    {"sku": "NW-AF-200", "name": "Vesper air fryer 5.5 L", "qty": 1, "unit_price": 129.00}
  ]', '2026-08-11 17:02:00+00'),
  ('ZX-31586', 'ingrid.holm@example.com', 'in_transit', 'DPD', '2026-06-16', 'Valletta', '[
    {"sku": "NW-KT-170", "name": "Lumen kettle", "qty": 1, "unit_price": 54.90},
    {"sku": "NW-TS-110", "name": "Nimbus toaster", "qty": 1, "unit_price": 49.90}
  ]', '2026-06-15 16:20:00+00'),
  ('ZX-95682', 'ingrid.holm@example.com', 'processing', null, null, 'Valletta', '[
    {"sku": "NW-BL-310", "name": "Aerith blender 1.5 L", "qty": 1, "unit_price": 89.00}
  ]', '2026-11-21 09:14:00+00'),
  ('ZX-19608', 'priya.raman@example.com', 'delivered', 'DPD', '2026-09-10', 'London', '[
    {"sku": "NW-SM-500", "name": "Orla stand mixer", "qty": 1, "unit_price": 279.00},
    {"sku": "NW-CG-120", "name": "Quill coffee grinder", "qty": 1, "unit_price": 59.00},
    {"sku": "NW-AC-010", "name": "Descaling tablets, 12 pack", "qty": 1, "unit_price": 7.90}
  ]', '2026-09-10 07:55:00+00'),
  ('ZX-34422', 'priya.raman@example.com', 'delivered', 'DHL Express', '2026-10-05', 'London', '[
    {"sku": "NW-KT-170", "name": "Lumen kettle", "qty": 1, "unit_price": 54.90}
  ]', '2026-10-05 09:00:00+00'),
  ('ZX-20918', 'mateo.ruiz@example.com', 'delivered', 'DPD', '2026-08-28', 'Gdańsk', '[
    {"sku": "NW-AF-200", "name": "Vesper air fryer 5.5 L", "qty": 1, "unit_price": 129.00},
    {"sku": "NW-AF-021", "name": "Air fryer paper liners, 50 pack", "qty": 1, "unit_price": 9.90}
  ]', '2026-08-27 20:10:00+00'),
  ('ZX-53168', 'mateo.ruiz@example.com', 'cancelled', null, null, 'Gdańsk', '[
    {"sku": "NW-SM-040", "name": "Orla pasta roller attachment", "qty": 1, "unit_price": 69.00}
  ]', '2026-09-14 11:31:00+00'),
  ('ZX-45643', 'amara.okafor@example.com', 'shipped', 'PostNord', '2026-11-20', 'Malmö', '[
    {"sku": "NW-TS-110", "name": "Nimbus toaster", "qty": 1, "unit_price": 49.90},
    {"sku": "NW-AC-010", "name": "Descaling tablets, 12 pack", "qty": 1, "unit_price": 7.90}
  ]', '2026-11-20 07:48:00+00'),
  -- Guest checkout: no customer account.
  ('ZX-43466', null, 'in_transit', 'DHL', '2026-11-17', 'Bologna', '[
    {"sku": "NW-CG-120", "name": "Quill coffee grinder", "qty": 1, "unit_price": 59.00},
    {"sku": "NW-KT-150", "name": "Zorblax kettle 1.7 L", "qty": 2, "unit_price": 39.90}
  ]', '2026-11-17 08:26:00+00');

-- The carriers' scans, one row each, folded into each order's tracking_events
-- (oldest first; the text timestamps sort in time order).
with scans (order_id, ts, location, status, detail) as (values
  ('ZX-14440', '2026-04-13T06:12:00Z', 'Kassel, DE', 'label_created', 'Shipping label created by Northwind Home; DPD has been told about the parcel but has not received it yet.'),
  ('ZX-14440', '2026-04-13T13:47:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by DPD; weight confirmed at 7.8 kg, one parcel of one.'),
  ('ZX-14440', '2026-04-13T21:30:00Z', 'Unna hub, DE', 'arrived_at_hub', 'Parcel arrived at the DPD sorting hub in Unna and was sorted onto the international line-haul to the Netherlands.'),
  ('ZX-14440', '2026-04-14T02:55:00Z', 'Unna hub, DE', 'departed_hub', 'Parcel left the Unna hub on a scheduled line-haul truck towards the DPD international hub in Rotterdam.'),
  ('ZX-14440', '2026-04-14T09:18:00Z', 'Rotterdam, NL', 'arrived_at_hub', 'Parcel arrived at the DPD international hub in Rotterdam and is waiting for the next ferry connection to Ireland.'),
  ('ZX-14440', '2026-04-14T17:40:00Z', 'Rotterdam, NL', 'departed_hub', 'Parcel loaded into a sealed trailer and handed to the ferry operator for the crossing to Rosslare.'),
  ('ZX-14440', '2026-04-16T07:05:00Z', 'Rosslare Europort, IE', 'in_transit', 'Trailer unloaded at Rosslare Europort; no customs check is needed for goods shipped within the EU.'),
  ('ZX-14440', '2026-04-16T14:22:00Z', 'Athlone hub, IE', 'arrived_at_hub', 'Parcel arrived at the DPD Ireland national hub in Athlone and was sorted for the Cork delivery depot.'),
  ('ZX-14440', '2026-04-16T23:10:00Z', 'Athlone hub, IE', 'departed_hub', 'Parcel left the Athlone hub on the overnight trunk route to Cork.'),
  ('ZX-14440', '2026-04-17T05:34:00Z', 'Cork depot, IE', 'arrived_at_depot', 'Parcel arrived at the DPD depot in Cork and was assigned to a delivery route for today.'),
  ('ZX-14440', '2026-04-17T07:48:00Z', 'Cork depot, IE', 'out_for_delivery', 'Parcel is on the delivery vehicle; DPD will send a one-hour delivery window by text message.'),
  ('ZX-14440', '2026-04-17T14:26:00Z', 'Cork, IE', 'delivery_attempted', 'Delivery attempted but nobody was home and no safe place was named; a calling card was left at the address.'),
  ('ZX-14440', '2026-04-17T14:31:00Z', 'Cork, IE', 'notification_sent', 'Text message and e-mail sent to the recipient with a link to rebook delivery or to choose a DPD Pickup shop instead.'),
  ('ZX-14440', '2026-04-17T18:02:00Z', 'Cork depot, IE', 'returned_to_depot', 'Parcel returned to the Cork depot after the failed attempt; a second attempt is scheduled for the next business day.'),
  ('ZX-14440', '2026-04-20T08:11:00Z', 'Cork depot, IE', 'out_for_delivery', 'Second delivery attempt: the parcel is on the delivery vehicle again.'),
  ('ZX-14440', '2026-04-20T16:49:00Z', 'Cork, IE', 'delivery_attempted', 'Second attempt failed: the driver could not get into the building and the phone number on the label did not answer.'),
  ('ZX-14440', '2026-04-20T16:55:00Z', 'Cork, IE', 'notification_sent', 'Text message sent to the recipient: no further delivery attempt will be made; the depot is open 08:00 to 18:00, Monday to Saturday.'),
  ('ZX-14440', '2026-04-20T19:30:00Z', 'Cork depot, IE', 'held_at_depot', 'Parcel is held at the DPD depot in Cork for 7 calendar days; it can be collected with photo ID or delivery rebooked on the DPD tracking page.'),
  ('ZX-14440', '2026-04-22T10:15:00Z', 'Cork depot, IE', 'held_at_depot', 'Reminder e-mailed to the recipient: the parcel is still at the Cork depot and goes back to the sender if not collected by 27 April.'),

  ('ZX-59197', '2026-02-02T11:20:00Z', 'Kassel, DE', 'label_created', 'Shipping label created by Northwind Home; the parcel is packed and waiting for the afternoon DPD collection.'),
  ('ZX-59197', '2026-02-02T15:55:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by DPD; weight confirmed at 3.1 kg, one parcel of one.'),
  ('ZX-59197', '2026-02-02T22:40:00Z', 'Unna hub, DE', 'arrived_at_hub', 'Parcel arrived at the DPD sorting hub in Unna and was sorted for export to Ireland.'),
  ('ZX-59197', '2026-02-03T03:15:00Z', 'Unna hub, DE', 'departed_hub', 'Parcel left the Unna hub on the night line-haul to Rotterdam.'),
  ('ZX-59197', '2026-02-03T10:02:00Z', 'Rotterdam, NL', 'arrived_at_hub', 'Parcel arrived at the DPD international hub in Rotterdam; the ferry connection is booked for this evening.'),
  ('ZX-59197', '2026-02-03T19:45:00Z', 'Rotterdam, NL', 'departed_hub', 'Parcel loaded into a sealed trailer and handed to the ferry operator for the crossing to Rosslare.'),
  ('ZX-59197', '2026-02-04T09:30:00Z', 'Rosslare Europort, IE', 'in_transit', 'Trailer unloaded at Rosslare Europort and sent on by road to the DPD Ireland hub.'),
  ('ZX-59197', '2026-02-04T11:05:00Z', 'Rosslare Europort, IE', 'departed_hub', 'Trailer left Rosslare Europort by road for the DPD Ireland national hub in Athlone.'),
  ('ZX-59197', '2026-02-04T16:12:00Z', 'Athlone hub, IE', 'arrived_at_hub', 'Parcel arrived at the DPD Ireland national hub in Athlone and was sorted for Cork.'),
  ('ZX-59197', '2026-02-05T00:20:00Z', 'Athlone hub, IE', 'departed_hub', 'Parcel left the Athlone hub on the overnight trunk route to Cork.'),
  ('ZX-59197', '2026-02-05T05:50:00Z', 'Cork depot, IE', 'arrived_at_depot', 'Parcel arrived at the DPD depot in Cork and was assigned to a morning delivery route.'),
  ('ZX-59197', '2026-02-05T08:03:00Z', 'Cork depot, IE', 'out_for_delivery', 'Parcel is on the delivery vehicle; the expected delivery window is 12:00 to 13:00.'),
  ('ZX-59197', '2026-02-05T11:55:00Z', 'Cork, IE', 'driver_nearby', 'Delivery window updated: the driver is about 30 minutes away; the recipient confirmed by text message that someone is at home.'),
  ('ZX-59197', '2026-02-05T12:41:00Z', 'Cork, IE', 'delivered', 'Delivered to the recipient in person; signature captured by the driver as L. Brandt.'),

  ('ZX-17496', '2026-07-27T06:40:00Z', 'Kassel, DE', 'label_created', 'Shipping label created by Northwind Home for PostNord; the parcel is packed and waiting for collection.'),
  ('ZX-17496', '2026-07-27T14:05:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by PostNord''s German partner; weight confirmed at 12.4 kg.'),
  ('ZX-17496', '2026-07-28T01:30:00Z', 'Hamburg, DE', 'arrived_at_hub', 'Parcel arrived at the PostNord export terminal in Hamburg and was sorted for Norway.'),
  ('ZX-17496', '2026-07-28T18:20:00Z', 'Hamburg, DE', 'departed_hub', 'Parcel left Hamburg on the line-haul to Oslo via the Kiel ferry.'),
  ('ZX-17496', '2026-07-29T15:45:00Z', 'Lørenskog terminal, NO', 'arrived_at_hub', 'Parcel arrived at the PostNord terminal outside Oslo and was registered for Norwegian customs clearance.'),
  ('ZX-17496', '2026-07-29T16:10:00Z', 'Lørenskog terminal, NO', 'customs_declared', 'Import declaration submitted by Northwind Home''s customs agent; duties and import VAT are prepaid, so nothing is due on delivery.'),
  ('ZX-17496', '2026-07-30T09:25:00Z', 'Lørenskog terminal, NO', 'customs_hold', 'Norwegian customs selected the parcel for a document check; this usually adds one to two business days.'),
  ('ZX-17496', '2026-07-31T13:50:00Z', 'Lørenskog terminal, NO', 'customs_cleared', 'Customs released the parcel after the document check; no duties or fees are payable by the recipient.'),
  ('ZX-17496', '2026-07-31T22:15:00Z', 'Lørenskog terminal, NO', 'departed_hub', 'Parcel left the Oslo terminal on the overnight road line-haul to Bergen.'),
  ('ZX-17496', '2026-08-01T11:40:00Z', 'Voss, NO', 'delayed', 'Line-haul delayed by a road closure on the E16 after a rockfall; the truck is waiting for the road to reopen.'),
  ('ZX-17496', '2026-08-03T07:05:00Z', 'Bergen terminal, NO', 'arrived_at_hub', 'Parcel arrived at the PostNord terminal in Bergen two days later than planned because of the road closure.'),
  ('ZX-17496', '2026-08-03T09:30:00Z', 'Bergen terminal, NO', 'in_transit', 'Parcel is too large for a parcel locker and was routed to home delivery; expected on the next business day.'),
  ('ZX-17496', '2026-08-04T06:55:00Z', 'Bergen terminal, NO', 'in_transit', 'Delivery postponed: the home-delivery route for the recipient''s area is full today; the parcel stays at the terminal.'),

  ('ZX-31586', '2026-06-16T07:02:00Z', 'Kassel, DE', 'label_created', 'Shipping label created by Northwind Home; DPD has been told about the parcel but has not received it yet.'),
  ('ZX-31586', '2026-06-16T13:58:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by DPD; weight confirmed at 3.6 kg, one parcel of one.'),
  ('ZX-31586', '2026-06-16T23:45:00Z', 'Aschaffenburg hub, DE', 'arrived_at_hub', 'Parcel arrived at the DPD hub in Aschaffenburg and was sorted onto the line-haul to Italy.'),
  ('ZX-31586', '2026-06-17T04:10:00Z', 'Aschaffenburg hub, DE', 'departed_hub', 'Parcel left the Aschaffenburg hub on the line-haul through the Brenner Pass to Bologna.'),
  ('ZX-31586', '2026-06-18T06:35:00Z', 'Bologna hub, IT', 'arrived_at_hub', 'Parcel arrived at the BRT-DPD hub in Bologna and was sorted for the southern Italy and Malta route.'),
  ('ZX-31586', '2026-06-18T20:15:00Z', 'Bologna hub, IT', 'departed_hub', 'Parcel left Bologna on the overnight line-haul to Sicily.'),
  ('ZX-31586', '2026-06-19T19:40:00Z', 'Catania, IT', 'arrived_at_hub', 'Parcel arrived at the Catania depot and is waiting for a place on the ferry from Pozzallo to Malta.'),
  ('ZX-31586', '2026-06-20T10:30:00Z', 'Pozzallo, IT', 'arrived_at_port', 'Parcel arrived at the ferry terminal in Pozzallo; its place on the sailing to Valletta is booked for 22 June.'),
  ('ZX-31586', '2026-06-22T15:00:00Z', 'Pozzallo, IT', 'delayed', 'Ferry departure cancelled because of high winds in the Malta Channel; the parcel is booked on the next sailing.'),
  ('ZX-31586', '2026-06-22T18:30:00Z', 'Pozzallo, IT', 'delayed', 'Rebooked on the sailing of 23 June at 17:00; the parcel stays in the secure area of the port overnight.'),
  ('ZX-31586', '2026-06-23T17:25:00Z', 'Pozzallo, IT', 'departed_hub', 'Parcel loaded onto the ferry from Pozzallo to Valletta.'),
  ('ZX-31586', '2026-06-23T21:10:00Z', 'Valletta port, MT', 'in_transit', 'Ferry arrived in Valletta; no customs check is needed for goods shipped within the EU.'),
  ('ZX-31586', '2026-06-24T08:30:00Z', 'Marsa depot, MT', 'arrived_at_depot', 'Parcel arrived at the DPD partner depot in Marsa and is waiting to be sorted for delivery.'),
  ('ZX-31586', '2026-06-24T16:45:00Z', 'Marsa depot, MT', 'in_transit', 'Parcel could not be sorted today: the depot is working through the backlog left by the cancelled ferries.'),

  ('ZX-19608', '2026-09-10T09:15:00Z', 'Kassel, DE', 'label_created', 'Shipping label and customs invoice created by Northwind Home; duties and import VAT for the United Kingdom are prepaid.'),
  ('ZX-19608', '2026-09-10T14:02:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by DPD; weight confirmed at 11.2 kg, one parcel of one.'),
  ('ZX-19608', '2026-09-10T22:18:00Z', 'Unna hub, DE', 'arrived_at_hub', 'Parcel arrived at the DPD sorting hub in Unna and was sorted for export to the United Kingdom.'),
  ('ZX-19608', '2026-09-11T03:40:00Z', 'Unna hub, DE', 'departed_hub', 'Parcel left the Unna hub on the line-haul to the Channel crossing at Calais.'),
  ('ZX-19608', '2026-09-11T13:25:00Z', 'Calais, FR', 'export_cleared', 'EU export declaration closed at Calais; the parcel has officially left the European Union.'),
  ('ZX-19608', '2026-09-11T16:05:00Z', 'Dover, GB', 'customs_declared', 'Trailer crossed to Dover; the UK import declaration was lodged by DPD''s customs team with duties prepaid.'),
  ('ZX-19608', '2026-09-11T17:30:00Z', 'Dover, GB', 'customs_cleared', 'HMRC released the parcel without inspection; nothing is payable by the recipient.'),
  ('ZX-19608', '2026-09-12T01:50:00Z', 'Hinckley hub, GB', 'arrived_at_hub', 'Parcel arrived at the DPD UK national hub in Hinckley and was sorted for the London depots.'),
  ('ZX-19608', '2026-09-12T04:35:00Z', 'Hinckley hub, GB', 'departed_hub', 'Parcel left the Hinckley hub on the early trunk route to West London.'),
  ('ZX-19608', '2026-09-12T08:10:00Z', 'Park Royal depot, GB', 'arrived_at_depot', 'Parcel arrived at the DPD depot in Park Royal; Saturday delivery is not available for this postcode.'),
  ('ZX-19608', '2026-09-14T07:20:00Z', 'Park Royal depot, GB', 'out_for_delivery', 'Parcel is on the delivery vehicle; DPD sent a one-hour delivery window of 10:40 to 11:40 by e-mail.'),
  ('ZX-19608', '2026-09-14T10:58:00Z', 'London, GB', 'delivery_attempted', 'Nobody answered at the address; the driver is trying the neighbours as the recipient''s delivery preferences allow.'),
  ('ZX-19608', '2026-09-14T11:06:00Z', 'London, GB', 'delivered', 'Delivered to a neighbour at number 14, who signed as R. Okoye; a photo of the handover is on the DPD tracking page.'),

  ('ZX-20918', '2026-08-28T07:30:00Z', 'Kassel, DE', 'label_created', 'Shipping label created by Northwind Home; the recipient chose delivery to a DPD Pickup parcel locker.'),
  ('ZX-20918', '2026-08-28T13:52:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by DPD; weight confirmed at 6.9 kg, within the locker size limit.'),
  ('ZX-20918', '2026-08-28T21:05:00Z', 'Hannover hub, DE', 'arrived_at_hub', 'Parcel arrived at the DPD hub in Hannover and was sorted onto the line-haul to Poland.'),
  ('ZX-20918', '2026-08-29T02:30:00Z', 'Hannover hub, DE', 'departed_hub', 'Parcel left the Hannover hub towards the DPD Polska hub in Poznań.'),
  ('ZX-20918', '2026-08-29T14:15:00Z', 'Poznań hub, PL', 'arrived_at_hub', 'Parcel arrived at the DPD Polska hub in Poznań; weekend line-hauls run on reduced schedules.'),
  ('ZX-20918', '2026-08-29T16:00:00Z', 'Poznań hub, PL', 'held_at_hub', 'Parcel is waiting at the Poznań hub for the Monday line-haul; parcel lockers in this region are not served at weekends.'),
  ('ZX-20918', '2026-08-31T01:40:00Z', 'Poznań hub, PL', 'departed_hub', 'Parcel left Poznań on the night line-haul to Gdańsk.'),
  ('ZX-20918', '2026-08-31T06:55:00Z', 'Gdańsk depot, PL', 'arrived_at_depot', 'Parcel arrived at the DPD depot in Gdańsk and was assigned to the parcel-locker route.'),
  ('ZX-20918', '2026-08-31T09:10:00Z', 'Gdańsk depot, PL', 'out_for_delivery', 'Parcel is on the way to the chosen parcel locker.'),
  ('ZX-20918', '2026-08-31T11:22:00Z', 'Gdańsk, PL', 'locker_full', 'The chosen parcel locker on ulica Grunwaldzka was full; the driver took the parcel to the nearest locker with space.'),
  ('ZX-20918', '2026-08-31T11:48:00Z', 'Gdańsk, PL', 'in_locker', 'Parcel placed in the DPD Pickup locker on ulica Partyzantów; the pickup code was sent by SMS and is valid for 72 hours.'),
  ('ZX-20918', '2026-09-01T09:00:00Z', 'Gdańsk, PL', 'reminder_sent', 'Reminder sent by SMS: the parcel is waiting in the locker on ulica Partyzantów; the pickup code expires on 3 September at 11:48.'),
  ('ZX-20918', '2026-09-01T18:37:00Z', 'Gdańsk, PL', 'delivered', 'Parcel collected from the locker with the pickup code.'),

  ('ZX-50802', '2026-08-12T08:05:00Z', 'Kassel, DE', 'label_created', 'Shipping label created by Northwind Home; gift wrapping added and no invoice enclosed, as requested.'),
  ('ZX-50802', '2026-08-12T15:10:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by DHL.'),
  ('ZX-50802', '2026-08-13T02:45:00Z', 'Nuremberg hub, DE', 'departed_hub', 'Parcel sorted at the DHL hub in Nuremberg and sent on to Austrian Post, DHL''s delivery partner in Austria.'),
  ('ZX-50802', '2026-08-14T05:20:00Z', 'Graz, AT', 'out_for_delivery', 'Parcel is on the delivery vehicle in Graz.'),
  ('ZX-50802', '2026-08-14T12:03:00Z', 'Graz, AT', 'delivered', 'Delivered to the recipient in person.'),

  ('ZX-34422', '2026-10-05T10:30:00Z', 'Kassel, DE', 'picked_up', 'Express parcel collected from the Northwind Home warehouse by DHL Express; duties for the United Kingdom are prepaid.'),
  ('ZX-34422', '2026-10-05T22:10:00Z', 'Leipzig hub, DE', 'departed_hub', 'Parcel left the DHL Express hub in Leipzig on the night flight to East Midlands.'),
  ('ZX-34422', '2026-10-06T03:40:00Z', 'East Midlands, GB', 'customs_cleared', 'Cleared UK customs at East Midlands airport; nothing is payable by the recipient.'),
  ('ZX-34422', '2026-10-06T13:15:00Z', 'London, GB', 'delivered', 'Delivered to the recipient in person; signed for as P. Raman.'),

  ('ZX-45643', '2026-11-20T08:55:00Z', 'Kassel, DE', 'label_created', 'Shipping label created by Northwind Home; PostNord has been told about the parcel but has not received it yet.'),
  ('ZX-45643', '2026-11-20T14:20:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by PostNord''s German partner.'),

  ('ZX-43466', '2026-11-17T09:40:00Z', 'Kassel, DE', 'label_created', 'Shipping label created by Northwind Home for a guest order; DHL has been told about the parcel.'),
  ('ZX-43466', '2026-11-17T14:35:00Z', 'Kassel, DE', 'picked_up', 'Parcel collected from the Northwind Home warehouse by DHL; weight confirmed at 4.2 kg.'),
  ('ZX-43466', '2026-11-18T00:50:00Z', 'Aschaffenburg hub, DE', 'departed_hub', 'Parcel sorted at the DHL hub in Aschaffenburg and sent on the line-haul to Italy.'),
  ('ZX-43466', '2026-11-19T07:25:00Z', 'Bologna hub, IT', 'arrived_at_hub', 'Parcel arrived at the DHL hub in Bologna and was handed to the local delivery partner.'),
  ('ZX-43466', '2026-11-20T16:10:00Z', 'Bologna hub, IT', 'delayed', 'Delivery moved to the next business day because of a regional transport strike.')
)
update orders o
set tracking_events = (
  select jsonb_agg(jsonb_build_object('ts', s.ts, 'location', s.location, 'status', s.status, 'detail', s.detail) order by s.ts)
  from scans s
  where s.order_id = o.order_id
)
where o.order_id in (select order_id from scans);
