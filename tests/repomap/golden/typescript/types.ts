export interface User {
  id: number;
  name: string;
}

export type UserId = number;

export interface Repository<T> {
  get(id: UserId): T | undefined;
  save(item: T): void;
}
