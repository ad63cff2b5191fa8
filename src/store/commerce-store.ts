import { parseJsonColumn, type SqlQueryable } from './database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';

/** Mirrors the check constraint on orders.status (migration 20261122000800_sample_commerce). */
export type OrderStatus = 'processing' | 'shipped' | 'in_transit' | 'held_at_depot' | 'delivered' | 'cancelled';

export interface OrderItem {
  sku: string;
  name: string;
  qty: number;
  /** EUR. */
  unitPrice: number;
}

/** One carrier scan. `ts` is an ISO-8601 UTC timestamp. */
export interface TrackingEvent {
  ts: string;
  location: string;
  status: string;
  detail: string;
}

export interface OrderRecord {
  orderId: string;
  /** The customer who placed it; null for a guest checkout. */
  userId: string | null;
  status: OrderStatus;
  /** Null until the order leaves the warehouse. */
  carrier: string | null;
  /** 'YYYY-MM-DD'; null until the order leaves the warehouse. */
  shipDate: string | null;
  destinationCity: string;
  items: OrderItem[];
  /** Oldest first, as the carrier reports them. */
  trackingEvents: TrackingEvent[];
  /** When the order was placed. */
  createdAt: Date;
}

export interface PurchaseRecord {
  orderId: string;
  /** 'YYYY-MM-DD'. */
  date: string;
  product: string;
  /** EUR. */
  total: number;
  returned: boolean;
}

export type LoyaltyTier = 'Bronze' | 'Silver' | 'Gold';

export interface CustomerProfile {
  /** The shop's customer id (an e-mail address in the sample data). */
  userId: string;
  name: string;
  email: string;
  phone: string | null;
  city: string | null;
  loyaltyTier: LoyaltyTier;
  /** 'YYYY-MM-DD'. */
  memberSince: string;
  /** Newest first. */
  purchaseHistory: PurchaseRecord[];
  createdAt: Date;
}

/** Read access to the shop's orders and customers, for the agent's tools. */
export interface CommerceStore {
  /** The order with exactly this id (e.g. 'ZX-14440'), or null. */
  findOrder(orderId: string): Promise<OrderRecord | null>;
  /** The customer with exactly this id, or null. */
  findCustomer(userId: string): Promise<CustomerProfile | null>;
}

// find_order and find_customer (migration 20261122001200_read_functions) hand
// dates back as text, so no driver shifts the day by time zone.
const FN = {
  order: sqlFunction('find_order', { p_order_id: 'text' }),
  customer: sqlFunction('find_customer', { p_user_id: 'text' }),
} as const;

/** Drivers differ: PGlite parses jsonb, some setups hand back text. */
type Json<T> = T | string;

interface OrderRow {
  order_id: string;
  user_id: string | null;
  status: OrderStatus;
  carrier: string | null;
  ship_date: string | null;
  destination_city: string;
  items: Json<Array<{ sku: string; name: string; qty: number; unit_price: number }>>;
  tracking_events: Json<TrackingEvent[]>;
  created_at: Date | string;
}

interface CustomerRow {
  user_id: string;
  name: string;
  email: string;
  phone: string | null;
  city: string | null;
  loyalty_tier: LoyaltyTier;
  member_since: string;
  purchase_history: Json<Array<{ order_id: string; date: string; product: string; total: number; returned: boolean }>>;
  created_at: Date | string;
}

/** The shop's tables (customer_profiles, orders) in any Postgres with the project's migrations, read through its functions. */
export class SqlCommerceStore implements CommerceStore {
  private readonly fn: SqlFunctionCaller;

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  async findOrder(orderId: string): Promise<OrderRecord | null> {
    const [row] = await this.fn.rows<OrderRow>(FN.order, { p_order_id: orderId });
    return row ? toOrderRecord(row) : null;
  }

  async findCustomer(userId: string): Promise<CustomerProfile | null> {
    const [row] = await this.fn.rows<CustomerRow>(FN.customer, { p_user_id: userId });
    return row ? toCustomerProfile(row) : null;
  }
}

function toOrderRecord(r: OrderRow): OrderRecord {
  return {
    orderId: r.order_id,
    userId: r.user_id,
    status: r.status,
    carrier: r.carrier,
    shipDate: r.ship_date,
    destinationCity: r.destination_city,
    items: parseJsonColumn(r.items).map((i) => ({ sku: i.sku, name: i.name, qty: Number(i.qty), unitPrice: Number(i.unit_price) })),
    trackingEvents: parseJsonColumn(r.tracking_events).map((e) => ({ ts: e.ts, location: e.location, status: e.status, detail: e.detail })),
    createdAt: new Date(r.created_at),
  };
}

function toCustomerProfile(r: CustomerRow): CustomerProfile {
  return {
    userId: r.user_id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    city: r.city,
    loyaltyTier: r.loyalty_tier,
    memberSince: r.member_since,
    purchaseHistory: parseJsonColumn(r.purchase_history).map((p) => ({
      orderId: p.order_id,
      date: p.date,
      product: p.product,
      total: Number(p.total),
      returned: p.returned,
    })),
    createdAt: new Date(r.created_at),
  };
}
