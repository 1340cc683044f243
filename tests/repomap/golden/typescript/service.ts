import { MemoryUserRepository } from "./repo";
import { User } from "./types";

export enum Role {
  Admin,
  Member,
}

export class UserService {
  constructor(private readonly repo: MemoryUserRepository) {}

  register(name: string): User {
    const user: User = { id: Date.now(), name };
    this.repo.save(user);
    return user;
  }
}

export function bootstrap(): UserService {
  return new UserService(new MemoryUserRepository());
}
