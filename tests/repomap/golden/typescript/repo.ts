import { Repository, User, UserId } from "./types";

export class MemoryUserRepository implements Repository<User> {
  private users = new Map<UserId, User>();

  get(id: UserId): User | undefined {
    return this.users.get(id);
  }

  save(user: User): void {
    this.users.set(user.id, user);
  }
}
